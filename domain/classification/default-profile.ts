import type { IndustryProfileInput } from './types';

/**
 * The industry profile a new organization starts with (an installation company); the
 * organization changes it through PATCH /settings/industry-profile.
 */
export const DEFAULT_PROFILE: IndustryProfileInput & { key: string; description: string } = {
  key: 'installation',
  name: 'Installation and building services',
  description: 'Heating, ventilation, solar and electrical installation for new and renovated buildings',
  propositionText: 'We design and install sustainable heating, ventilation and solar systems for building projects.',
  products: [
    { key: 'heat_pumps', name: 'Heat pumps', fitKeywords: ['warmtepomp', 'warmtepompen', 'heat pump', 'heat pumps', 'aardgasvrij', 'gasloos'] },
    { key: 'solar', name: 'Solar PV', fitKeywords: ['zonnepanelen', 'zonnepaneel', 'solar', 'pv-installatie'] },
    {
      key: 'hvac',
      name: 'HVAC and electrical installation',
      fitKeywords: ['installatie', 'installation', 'hvac', 'ventilatie', 'klimaatinstallatie', 'elektrotechniek'],
    },
  ],
  personas: [
    { segment: 'project developer', titleKeywords: ['projectontwikkelaar', 'developer', 'ontwikkelmanager'] },
    { segment: 'contractor', titleKeywords: ['aannemer', 'contractor', 'bouwbedrijf', 'projectleider'] },
    { segment: 'facility manager', titleKeywords: ['facilitair', 'facility manager', 'vastgoedbeheer'] },
  ],
};

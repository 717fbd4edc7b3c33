import type { ComposeInput } from '../../domain/outreach/compose';

/** A first message from Acme Installaties to Jan at Bouw B.V., with complete compliance settings. */
export function composeInput(over: Partial<ComposeInput> = {}): ComposeInput {
  return {
    messageId: '6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab',
    subject: 'Warmtepompen voor uw 48 woningen',
    body: 'Beste Jan,\n\nIk las over uw project aan de Dorpsstraat.\n\nMet vriendelijke groet,\nAnna\n\n',
    from: { address: 'anna@acme-installaties.nl', displayName: 'Anna de Vries' },
    to: { address: 'jan@bouw.nl', name: 'Jan Jansen' },
    locale: 'nl-NL',
    firstToPerson: true,
    compliance: {
      sender_legal_name: 'Acme Installaties B.V.',
      sender_address: 'Stationsweg 1, 3511 AA Utrecht',
      privacy_url: 'https://acme-installaties.nl/privacy',
      unsubscribe_mailto: 'mailto:afmelden@acme-installaties.nl?subject=afmelden',
      retention_months: 24,
      ai_disclosure: 'footer',
    },
    aiWritten: true,
    source: { kind: 'website', companyName: 'Bouw B.V.', url: 'bouw.nl' },
    unsubscribeUrl: 'https://outreach.example.nl/u/TOKEN',
    messageIdDomain: 'acme-installaties.nl',
    ...over,
  };
}

import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { publicHolidays } from '../../domain/sending/holidays';
import type { HealthResult } from '../../domain/deliverability/score';
import type { TestApi } from './api';
import type { TestUser } from './tokens';

/**
 * An organization ready to send, through the API alone: compliance settings that every e-mail
 * needs (sender, address, privacy URL), a mailbox on a domain whose deliverability passes, pointed at
 * a test SMTP server that may send at any hour of any day, and contacts with a lawful basis (consent: their own address may be e-mailed).
 */
export interface OutreachOrg {
  owner: TestUser;
  orgId: string;
  mailboxId: string;
  companyId: string;
  call(method: string, path: string, body?: unknown): ReturnType<TestApi['call']>;
  ok<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** A contact with consent recorded, so its own address may be e-mailed. */
  contact(over?: { email?: string; fullName?: string }): Promise<{ id: string; email: string }>;
}

/**
 * A holiday country with no public holiday from yesterday to three days ahead (in the mailbox's zone):
 * the outreach tests must not depend on the date (the organization's default, NL, closes on 27 April
 * and at Christmas). Every country has holidays, so one without any in these days is chosen.
 */
export function quietHolidayCountry(zone = 'Europe/Amsterdam', now = DateTime.now()): string {
  const today = now.setZone(zone);
  const days = [-1, 0, 1, 2, 3].map((d) => today.plus({ days: d }).toISODate()!);
  const years = { from: today.year - 1, to: today.year + 1 };
  const found = ['NL', 'DE', 'GB', 'US', 'JP', 'BR', 'IN', 'AU', 'ZA', 'CA'].find((c) => !days.some((d) => publicHolidays(c, null, years).has(d)));
  if (!found) throw new Error(`no holiday country without a public holiday around ${today.toISODate()}`);
  return found;
}

/** Open every hour of every day, on no public holiday (quietHolidayCountry), with no gap between sends. */
export const ALWAYS_OPEN = {
  timezone: 'Europe/Amsterdam',
  sendingWindow: { start: '00:00', end: '24:00' },
  sendingDays: [1, 2, 3, 4, 5, 6, 7],
  minGapSeconds: 0,
  holidayCountry: quietHolidayCountry(),
};

export async function outreachOrg(
  api: TestApi,
  newOrganization: (api: TestApi, name: string) => Promise<{ owner: TestUser; orgId: string }>,
  smtp: { host: string; port: number },
  mailbox: Record<string, unknown> = {},
): Promise<OutreachOrg> {
  const { owner, orgId } = await newOrganization(api, `Outreach ${randomUUID().slice(0, 6)} B.V.`);
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token: owner.token, body });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('PATCH', '/compliance/settings', {
    organizationId: orgId,
    senderLegalName: 'Acme Installaties B.V.',
    senderAddress: 'Stationsplein 1, 3511 ED Utrecht',
    privacyUrl: 'https://acme.example.nl/privacy',
    aiDisclosure: 'footer',
  });
  const slug = randomUUID().slice(0, 8);
  const box = await ok('POST', '/mailboxes', {
    organizationId: orgId,
    // good-mail.nl: a domain the test DNS server answers with passing SPF, DKIM (selector s1), DMARC and MX,
    // so the deliverability check before the mailbox's first send lets it send.
    address: `verkoop-${slug}@good-mail.nl`,
    dkimSelector: 's1',
    displayName: 'Sanne de Verkoper',
    smtp: { host: smtp.host, port: smtp.port, secure: false },
    secret: 'catcher-needs-no-password',
    ...ALWAYS_OPEN,
    ...mailbox,
  });
  const company = await ok('POST', '/companies', {
    organizationId: orgId,
    name: `Bouw ${slug} B.V.`,
    countryCode: 'NL',
    legalForm: 'bv',
    locale: 'nl-NL',
    domain: `bouw-${slug}.nl`,
  });
  return {
    owner,
    orgId,
    mailboxId: box.id,
    companyId: company.id,
    call,
    ok,
    async contact(over = {}) {
      const email = over.email ?? `p.${randomUUID().slice(0, 8)}@bouw-${slug}.nl`;
      const c = await ok('POST', '/contacts', {
        organizationId: orgId,
        companyId: company.id,
        fullName: over.fullName ?? 'Pieter Bakker',
        title: 'Projectleider',
        email,
      });
      await ok('PUT', `/contacts/${c.id}/lawful-basis`, {
        organizationId: orgId,
        basis: 'consent',
        recipient_kind: 'legal_person',
        country: 'NL',
        consent_evidence: 'signed at the trade fair',
      });
      return { id: c.id, email };
    },
  };
}

/** Polls until fn answers something truthy (the sequence runs in the worker processes); throws with the last answer after timeoutMs. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await fn();
    if (v) return v;
    last = v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A deliverability check that passes on every count, for tests that record a mailbox's health directly. */
export function passingHealth(domain: string): HealthResult {
  const c = { status: 'pass', record: '', detail: 'test' } as const;
  return { domain, spf: c, dkim: c, dmarc: c, mx: c, score: 100, sendable: true };
}

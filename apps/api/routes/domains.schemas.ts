import { z } from 'zod';
import { emptyBody, record, uuid, type Operation } from '../contract';
import { RECEIVING_PROVIDERS } from '../../../domain/sending/bulk-senders';

/**
 * The HTTP contract of apps/api/routes/domains.ts: who may connect which mailbox: the domains an
 * organization proves by DNS. Its request schemas, the records it answers (registered with `record`)
 * and its operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const createDomainBody = z.object({ organizationId: uuid, domain: z.string().trim().min(1, 'must not be empty').max(253) }).strict();

export const listDomainsQuery = z
  .object({ organizationId: uuid, limit: z.coerce.number().int().min(1).max(100).default(50), before: uuid.optional() })
  .strict();

export const domainVolumeQuery = z
  .object({ days: z.coerce.number().int('must be a whole number').min(1, 'must be between 1 and 90').max(90, 'must be between 1 and 90').default(7) })
  .strict();

const thresholds = z
  .object({
    near: z.number().int().describe('Above this many e-mails in a UTC day to one provider: the `domain.bulk_threshold_near` event'),
    hold: z
      .number()
      .int()
      .describe("From this many: the domain's further e-mails to that provider wait for the next UTC day, unless it passes SPF, DKIM and DMARC"),
  })
  .describe('The bulk-sender thresholds, per organizational domain, receiving provider and UTC day');

const provider = z
  .enum(RECEIVING_PROVIDERS)
  .describe(
    'The receiving provider: google (gmail.com, or MX at google.com), yahoo (Yahoo, AOL, MX at yahoodns.net), microsoft (Outlook.com, Hotmail, Live, MSN; not Microsoft 365 business), other (not counted toward the thresholds)',
  );

export const DomainVolume = record(
  'DomainVolume',
  "The e-mails sent from the domain's organizational domain (its subdomains' mailboxes add up under it), per UTC day and receiving provider, newest day first; a day and provider with nothing sent is left out",
  z.object({
    domain_id: z.uuid(),
    domain: z.string().describe('The organizational domain the counts are of (mail.acme.nl counts under acme.nl)'),
    days: z.array(z.object({ day: z.iso.date().describe('The UTC day'), provider, sent: z.number().int() })),
    thresholds,
  }),
);

export const DomainBulkThresholdNear = record(
  'DomainBulkThresholdNear',
  'A sending domain passed the near threshold of the bulk-sender rules to one provider on a UTC day',
  z.object({
    organization_id: z.uuid(),
    domain: z.string().describe('The organizational sending domain'),
    provider,
    day: z.iso.date().describe('The UTC day'),
    sent: z.number().int().describe('The e-mails sent to the provider that day when the event was written'),
    thresholds,
  }),
);

export const Domain = record(
  'Domain',
  'A mail domain of the organization: `pending` until the TXT record `verification.value` is found at `verification.name`, then `verified`. OAuth mailboxes connect only for addresses of a verified domain',
  z.object({
    id: z.uuid(),
    organization_id: z.uuid(),
    domain: z.string().describe('Lower case, without a trailing dot'),
    status: z.enum(['pending', 'verified']),
    verification: z
      .object({
        type: z.literal('dns_txt'),
        name: z.string().describe('Where to publish the TXT record'),
        value: z.string().describe("The TXT record's exact text"),
      })
      .describe('What to publish in DNS to prove the domain'),
    verified_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  }),
);

export const operations = [
  {
    id: 'createDomain',
    method: 'post',
    path: '/domains',
    tag: 'Mailboxes',
    summary:
      'Add a mail domain to prove (pending): publish the TXT record `verification.value` at `verification.name`, then verify it; 409 when the organization has it; OAuth mailboxes connect only for verified domains',
    role: 'admin',
    body: createDomainBody,
    status: 201,
    answer: Domain,
    problems: [409],
  },
  {
    id: 'listDomains',
    method: 'get',
    path: '/domains',
    tag: 'Mailboxes',
    summary: "The organization's mail domains, pending and verified",
    role: 'viewer',
    query: listDomainsQuery,
    answer: z.array(Domain),
  },
  {
    id: 'verifyDomain',
    method: 'post',
    path: '/domains/{domainId}/verify',
    tag: 'Mailboxes',
    summary:
      'Look the TXT record up now: the domain, verified, when one record at `verification.name` is exactly `verification.value`; else 409 naming what was found (nothing changes)',
    role: 'admin',
    body: emptyBody,
    answer: Domain,
    problems: [409],
  },
  {
    id: 'deleteDomain',
    mcp: 'hidden',
    method: 'delete',
    path: '/domains/{domainId}',
    tag: 'Mailboxes',
    summary: 'Remove a domain: mailboxes already connected stay, no new OAuth connection for it',
    role: 'admin',
    status: 204,
    empty: true,
    answer: Domain,
  },
  {
    id: 'domainVolume',
    method: 'get',
    path: '/domains/{domainId}/volume',
    tag: 'Mailboxes',
    summary:
      "E-mails sent from the domain's organizational domain per UTC day and receiving provider over the last `days` (default 7, at most 90), with the bulk-sender thresholds: above 4,000 a day to one provider the `domain.bulk_threshold_near` event, at 5,000 an unaligned domain waits for the next UTC day",
    role: 'viewer',
    query: domainVolumeQuery,
    answer: DomainVolume,
  },
] as const satisfies readonly Operation[];

import { createPublicKey } from 'node:crypto';
import { getDomain } from 'tldts';
import getDmarcRecord from 'mailauth/lib/dmarc/get-dmarc-record';
import { spf } from 'mailauth/lib/spf';
import { getPublicKey } from 'mailauth/lib/tools';
import { mailDomainProblem } from '../../../domain/deliverability/mail-domain';
import {
  evaluateHealth,
  type DkimFacts,
  type DmarcFacts,
  type HealthFacts,
  type HealthResult,
  type MxFacts,
  type SpfFacts,
} from '../../../domain/deliverability/score';
import { lookupFailure, mxRecords, type DnsResolver } from './resolver';

/** Tried in this order when the mailbox names no DKIM selector (Google, Microsoft 365, Mailchimp, common defaults). */
export const COMMON_DKIM_SELECTORS = ['google', 'selector1', 'selector2', 'k1', 's1', 's2', 'default'] as const;

/**
 * SPF is evaluated for this address (TEST-NET-1, RFC 5737): no real sender uses it, so the walk
 * visits every term (each include and redirect, counting its lookups) and ends at the record's
 * `all`; a record that authorises it authorises anyone.
 */
const PROBE_IP = '192.0.2.1';

const errorCode = (err: unknown) => (err as { code?: string }).code;
const absent = (err: unknown) => errorCode(err) === 'ENOTFOUND' || errorCode(err) === 'ENODATA';

async function readMx(dns: DnsResolver, domain: string): Promise<MxFacts> {
  try {
    return { records: await mxRecords(dns, domain) };
  } catch (err) {
    return lookupFailure(err);
  }
}

async function readSpf(dns: DnsResolver, domain: string): Promise<SpfFacts> {
  const r = await spf({ sender: `postmaster@${domain}`, ip: PROBE_IP, mta: 'deliverability-check', resolver: dns.resolve });
  return {
    result: r.status.result,
    record: r.rr ?? null,
    // mailauth's comment names the MTA and sender; the part after the last colon is the reason.
    comment: (r.status.comment ?? r.status.result).replace(/^.*?:\s*(permanent error|error) in processing during lookup of [^:]+:\s*/, ''),
    lookups: r.lookups?.count ?? 0,
    voidLookups: r.lookups?.void ?? 0,
  };
}

async function readDkimKey(dns: DnsResolver, domain: string, s: string): Promise<DkimFacts | { absent: true } | { failed: string }> {
  try {
    // mailauth reads the key with node:crypto (createPublicKey); the length is judged by the rubric, not here.
    const key = await getPublicKey('DKIM', `${s}._domainkey.${domain}`, 1, dns.resolve);
    const type = createPublicKey(key.publicKey).asymmetricKeyType ?? 'unknown';
    return { selector: s, record: key.rr, key: { type, bits: key.modulusLength ?? null } };
  } catch (err) {
    if (absent(err)) return { absent: true };
    const rr = (err as { rr?: string }).rr;
    if (rr === undefined) return { failed: lookupFailure(err).message };
    if (/(^|;)\s*p=\s*(;|$)/i.test(rr)) return { selector: s, record: rr, revoked: true };
    return { selector: s, record: rr, invalid: (err as Error).message };
  }
}

/** The mailbox's selector, else the first common one with a key record (looked up at once). */
async function readDkim(dns: DnsResolver, domain: string, selector: string | null): Promise<DkimFacts> {
  const selectors = selector ? [selector] : [...COMMON_DKIM_SELECTORS];
  const found = await Promise.all(selectors.map((s) => readDkimKey(dns, domain, s)));
  const key = found.find((f): f is DkimFacts => 'selector' in f);
  if (key) return key;
  const i = found.findIndex((f) => 'failed' in f);
  const failure = i >= 0 ? { selector: selectors[i]!, message: (found[i] as { failed: string }).failed } : undefined;
  return { selector: null, tried: selectors, failure };
}

async function readDmarc(dns: DnsResolver, domain: string): Promise<DmarcFacts> {
  try {
    const found = await getDmarcRecord(domain, dns.resolve);
    if (!found) return { record: null };
    const { rr, isOrgRecord, ...tags } = found;
    const at = isOrgRecord ? (getDomain(domain, { allowIcannDomains: true, allowPrivateDomains: true }) ?? domain) : domain;
    return { record: rr, tags, at, organisational: isOrgRecord };
  } catch (err) {
    return { record: null, failure: { message: lookupFailure(err).message } };
  }
}

/** Reads MX, SPF, DKIM and DMARC of the domain through this resolver. */
export async function readHealthFacts(dns: DnsResolver, domain: string, dkimSelector: string | null): Promise<HealthFacts> {
  const [mx, spfFacts, dkim, dmarc] = await Promise.all([
    readMx(dns, domain),
    readSpf(dns, domain),
    readDkim(dns, domain, dkimSelector),
    readDmarc(dns, domain),
  ]);
  return { domain, mx, spf: spfFacts, dkim, dmarc };
}

/** A mailbox domain that cannot be checked (IDN or not a domain name). */
export class InvalidMailDomainError extends Error {}

/** The deliverability check of a sending domain: its DNS read, judged by the rubric. */
export async function checkDomainHealth(dns: DnsResolver, domain: string, dkimSelector: string | null): Promise<HealthResult> {
  const problem = mailDomainProblem(domain);
  if (problem) throw new InvalidMailDomainError(problem);
  return evaluateHealth(await readHealthFacts(dns, domain.toLowerCase().replace(/\.$/, ''), dkimSelector));
}

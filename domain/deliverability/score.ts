/**
 * Mailbox deliverability (shared/compliance-rules.md section 4): what the DNS of a sending domain
 * says, judged per check (pass, warn, fail), scored out of 100 and summed up as `sendable`. Pure:
 * the facts come from the DNS lookups of activities/mailbox-health.ts, evaluated there by mailauth.
 */

export type CheckStatus = 'pass' | 'warn' | 'fail';
export interface CheckResult {
  status: CheckStatus;
  /** The DNS record the check read ('' when there is none). */
  record: string;
  detail: string;
}
export interface HealthResult {
  domain: string;
  spf: CheckResult;
  dkim: CheckResult;
  dmarc: CheckResult;
  mx: CheckResult;
  score: number;
  sendable: boolean;
}

/** Why a lookup found nothing: node:dns error codes, as words. */
export type LookupFailure = 'nxdomain' | 'nodata' | 'servfail' | 'timeout' | 'refused' | 'error';

export type MxFacts = { records: Array<{ exchange: string; priority: number }> } | { failure: LookupFailure; message: string };

/**
 * SPF as mailauth evaluated it (RFC 7208, its 10-lookup and 2-void-lookup limits counted through
 * every include and redirect) for a documentation address (RFC 5737) that no domain should authorise:
 * `pass` means the record lets any host send; `fail`/`softfail`/`neutral` is the record's final
 * `-all`/`~all`/`?all` (or no `all`).
 */
export interface SpfFacts {
  result: 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';
  record: string | null;
  /** mailauth's explanation (the permerror or temperror text). */
  comment: string;
  lookups: number;
  voidLookups: number;
}

export type DkimFacts =
  | { selector: string; record: string; key: { type: string; bits: number | null } }
  | { selector: string; record: string; revoked: true }
  | { selector: string; record: string; invalid: string }
  | { selector: null; tried: string[]; failure?: { selector: string; message: string } };

/** The DMARC record (tags as mailauth parses them), where it was found; or none, or a failed lookup. */
export type DmarcFacts =
  { record: string; tags: Record<string, string | number | boolean>; at: string; organisational: boolean } | { record: null; failure?: { message: string } };

export interface HealthFacts {
  domain: string;
  mx: MxFacts;
  spf: SpfFacts;
  dkim: DkimFacts;
  dmarc: DmarcFacts;
}

/** The rubric (compliance-rules.md 4): the points of each check, and the 10 for the rest. */
export const POINTS = {
  mx: 10,
  spf: 25,
  dkim: 25,
  dmarc: { none: 15, quarantine: 25, reject: 30 },
  rest: 10,
} as const;

const pass = (record: string, detail: string): CheckResult => ({ status: 'pass', record, detail });
const warn = (record: string, detail: string): CheckResult => ({ status: 'warn', record, detail });
const fail = (record: string, detail: string): CheckResult => ({ status: 'fail', record, detail });

export function judgeMx(facts: MxFacts): CheckResult {
  if ('failure' in facts) {
    return facts.failure === 'nxdomain' || facts.failure === 'nodata'
      ? fail('', facts.failure === 'nxdomain' ? 'the domain does not exist (NXDOMAIN)' : 'no MX record: the domain names no mail server')
      : fail('', `the MX lookup failed (${facts.failure}): ${facts.message}`);
  }
  const sorted = [...facts.records].sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
  const record = sorted.map((r) => `${r.priority} ${r.exchange || '.'}`).join(', ');
  if (sorted.length === 0) return fail('', 'no MX record: the domain names no mail server');
  if (sorted.some((r) => r.exchange === '' || r.exchange === '.')) return fail(record, 'null MX (RFC 7505): the domain accepts no mail');
  return pass(record, `${sorted.length} mail server${sorted.length === 1 ? '' : 's'}`);
}

/** The terms of an SPF record (after v=spf1), for what evaluation does not report: the `all` qualifier and `ptr`. */
function spfTerms(record: string): string[] {
  return record
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((t) => t.toLowerCase());
}

export function judgeSpf(f: SpfFacts): CheckResult {
  const record = f.record ?? '';
  const lookups = `${f.lookups} of 10 DNS lookups, ${f.voidLookups} void`;
  switch (f.result) {
    case 'none':
      return fail(record, 'no SPF record (a TXT record starting v=spf1)');
    case 'permerror':
      return fail(record, `SPF permerror: ${f.comment}`);
    case 'temperror':
      return fail(record, `the SPF lookup failed: ${f.comment}`);
    case 'pass': {
      const plusAll = spfTerms(record).some((t) => t === '+all' || t === 'all');
      return fail(record, plusAll ? '+all lets any host send as this domain' : 'the record authorises any host (an address no sender should have passes)');
    }
    default: {
      const terms = spfTerms(record);
      const notes: string[] = [];
      if (terms.some((t) => /^[+?~-]?ptr(:|$)/.test(t))) notes.push('ptr is deprecated (RFC 7208 5.5)');
      if (f.result === 'softfail') return warn(record, ['~all: other hosts soft-fail; -all is stricter', ...notes, lookups].join('; '));
      if (f.result === 'neutral') {
        const detail = terms.some((t) => t === '?all') ? '?all is as weak as no policy' : 'no all mechanism: as weak as ?all';
        return warn(record, [detail, ...notes, lookups].join('; '));
      }
      return notes.length ? warn(record, ['-all', ...notes, lookups].join('; ')) : pass(record, `-all; ${lookups}`);
    }
  }
}

export function judgeDkim(f: DkimFacts): CheckResult {
  if (f.selector === null) {
    if (f.failure) return fail('', `the DKIM lookup failed at ${f.failure.selector}._domainkey: ${f.failure.message}`);
    return fail('', `no DKIM key at the selector${f.tried.length === 1 ? '' : 's'} ${f.tried.join(', ')}`);
  }
  const at = `selector ${f.selector}`;
  if ('revoked' in f) return fail(f.record, `${at}: the key is revoked (empty p=)`);
  if ('invalid' in f) return fail(f.record, `${at}: ${f.invalid}`);
  const { type, bits } = f.key;
  if (type !== 'rsa') return pass(f.record, `${at}: ${type} key`);
  if (bits === null || bits < 1024) return fail(f.record, `${at}: ${bits ?? 'unknown'}-bit RSA key, under the 1024 bits RFC 8301 requires`);
  if (bits < 2048) return warn(f.record, `${at}: ${bits}-bit RSA key; 2048 bits are recommended`);
  return pass(f.record, `${at}: ${bits}-bit RSA key`);
}

const POLICIES = ['none', 'quarantine', 'reject'] as const;
type Policy = (typeof POLICIES)[number];
const policyOf = (v: unknown): Policy | null => {
  const p = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return (POLICIES as readonly string[]).includes(p) ? (p as Policy) : null;
};

/** The DMARC policy a valid record sets, else null. */
export function dmarcPolicy(f: DmarcFacts): Policy | null {
  return f.record === null ? null : policyOf(f.tags.p);
}

export function judgeDmarc(f: DmarcFacts): CheckResult {
  if (f.record === null) {
    return f.failure
      ? fail('', `the DMARC lookup failed: ${f.failure.message}`)
      : fail('', 'no DMARC record (_dmarc TXT v=DMARC1), at the domain nor its organisational domain');
  }
  const p = policyOf(f.tags.p);
  if (!p) return fail(f.record, `invalid DMARC record: p= must be none, quarantine or reject (found ${JSON.stringify(f.tags.p ?? '')})`);
  const alignment = (tag: unknown) =>
    String(tag ?? 'r')
      .trim()
      .toLowerCase() === 's'
      ? 'strict'
      : 'relaxed';
  const facts = [`p=${p}`, `DKIM alignment ${alignment(f.tags.adkim)}, SPF alignment ${alignment(f.tags.aspf)}`];
  if (f.organisational) facts.push(`from the organisational domain (${f.at})`);
  const warnings: string[] = [];
  if (p === 'none') warnings.push('p=none only monitors: quarantine or reject protects the domain');
  if (!f.tags.rua) warnings.push('no rua: nobody receives aggregate reports');
  if (f.tags.pct !== undefined && Number(f.tags.pct) < 100) warnings.push(`pct=${f.tags.pct}: the policy covers only part of the mail`);
  const sp = policyOf(f.tags.sp);
  if (sp && POLICIES.indexOf(sp) < POLICIES.indexOf(p)) warnings.push(`sp=${sp} is weaker than p=${p} for subdomains`);
  return warnings.length ? warn(f.record, [...warnings, ...facts].join('; ')) : pass(f.record, facts.join('; '));
}

/** The four checks, the score (the rubric in POINTS) and sendable (no check failed). */
export function evaluateHealth(facts: HealthFacts): HealthResult {
  const mx = judgeMx(facts.mx);
  const spf = judgeSpf(facts.spf);
  const dkim = judgeDkim(facts.dkim);
  const dmarc = judgeDmarc(facts.dmarc);
  const counts = (c: CheckResult) => c.status !== 'fail';
  const policy = dmarcPolicy(facts.dmarc);
  const score =
    (counts(mx) ? POINTS.mx : 0) +
    (counts(spf) ? POINTS.spf : 0) +
    (counts(dkim) ? POINTS.dkim : 0) +
    (counts(dmarc) && policy ? POINTS.dmarc[policy] : 0) +
    ([mx, spf, dkim, dmarc].every((c) => c.status === 'pass') ? POINTS.rest : 0);
  // Each fail is one of the rubric's conditions: MX missing or null, no single valid SPF or +all,
  // no DKIM key of 1024+ bits, no valid DMARC record.
  const sendable = [mx, spf, dkim, dmarc].every(counts);
  return { domain: facts.domain, spf, dkim, dmarc, mx, score, sendable };
}

/** The result for a domain that cannot be looked up (IDN, not a domain name): every check fails. */
export function invalidDomainResult(domain: string, problem: string): HealthResult {
  const failed = fail('', problem);
  return { domain, spf: failed, dkim: failed, dmarc: failed, mx: failed, score: 0, sendable: false };
}

/**
 * Why a mailbox may not send, from its latest check: null when it is sendable. The sending step
 * writes this on each message the mailbox holds (messages.error).
 */
export function notSendableReason(result: Pick<HealthResult, 'score' | 'sendable' | 'spf' | 'dkim' | 'dmarc' | 'mx'>): string | null {
  if (result.sendable) return null;
  const failed = (['mx', 'spf', 'dkim', 'dmarc'] as const).filter((k) => result[k].status === 'fail').map((k) => `${k.toUpperCase()}: ${result[k].detail}`);
  return `mailbox not sendable (deliverability ${result.score}/100): ${failed.join('; ')}`;
}

import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import { checkEmail, isGenericMailbox } from '../../../domain/companies/identity';
import type { CheckResult, EmailCheck } from '../../../domain/contacts/email-verification';
import { lookupFailure, mxRecords, type DnsResolver } from '../dns/resolver';
import type { SmtpProbe } from './smtp-probe';
import type { EmailVerifier, VerifierAnswer } from './types';

/**
 * The checks this service makes itself: syntax, a mail host in DNS, a throw-away domain (the
 * disposable-email-domains list, kept up to date by its package) and a role local part. Nothing is
 * sent to the recipient's server unless a probe is given (VERIFY_SMTP_PROBE): then the mail host is
 * asked at RCPT TO about the address and a made-up one, and never sent a message.
 */
// The package's own isDisposableEmailDomain builds a Set of its 8,000-odd domains on every call
// (two per address): the Set is built once, when first needed.
let disposable: Set<string> | undefined;
const isDisposable = (domain: string) => (disposable ??= disposableEmailBlocklistSet()).has(domain.toLowerCase());

export function createBuiltinVerifier(deps: { dns: DnsResolver; probe?: SmtpProbe }): EmailVerifier {
  async function check(address: string): Promise<VerifierAnswer> {
    const syntax = checkEmail(address);
    if (!syntax.ok)
      return {
        temporary: false,
        check: {
          syntax: 'fail',
          mx: null,
          disposable: null,
          role: null,
          catch_all: null,
          smtp: null,
          provider: 'builtin',
          detail: `the address ${syntax.reason}`,
        },
      };
    const host = syntax.email.slice(syntax.email.lastIndexOf('@') + 1);
    const disposable: CheckResult = isDisposable(host) || isDisposable(syntax.domain) ? 'fail' : 'pass';
    const role: CheckResult = isGenericMailbox(syntax.email) ? 'fail' : 'pass';
    const mail = await mailHost(deps.dns, host);
    const detail =
      mail.result !== 'pass'
        ? mail.detail
        : disposable === 'fail'
          ? `${host} is a disposable e-mail domain`
          : role === 'fail'
            ? 'a role address (the company’s, not a person’s)'
            : null;
    const checks: EmailCheck = { syntax: 'pass', mx: mail.result, disposable, role, catch_all: null, smtp: null, provider: 'builtin', detail };
    // A probe is worth its connection only for an address nothing else has ruled out.
    if (!deps.probe || mail.result !== 'pass' || disposable !== 'pass') return { check: checks, temporary: false };
    const probed = await deps.probe.probe(syntax.email, mail.hosts);
    return {
      check: {
        ...checks,
        smtp: probed.smtp,
        catch_all: probed.catch_all,
        // A refusal decides the status before a role address does; otherwise the role line stays first.
        detail: probed.smtp === 'fail' ? probed.detail : (detail ?? probed.detail),
      },
      temporary: probed.temporary,
    };
  }
  return {
    provider: 'builtin',
    check,
    verify: async (address) => (await check(address)).check,
  };
}

/**
 * Whether the host accepts mail: its MX records, or without any its A or AAAA record (the implicit
 * MX of RFC 5321 §5.1). A null MX ("." , RFC 7505) and a name that does not exist fail; a lookup
 * that did not answer is unknown. `hosts` are the mail hosts to connect to when it passes, the
 * preferred (lowest MX priority) first: the MX exchanges, or the host itself for the implicit MX.
 */
export async function mailHost(dns: DnsResolver, host: string): Promise<{ result: CheckResult; detail: string; hosts: string[] }> {
  const none = (result: CheckResult, detail: string) => ({ result, detail, hosts: [] });
  try {
    const mx = await mxRecords(dns, host);
    if (mx.length === 1 && (mx[0]!.exchange === '' || mx[0]!.exchange === '.')) return none('fail', `${host} declares that it accepts no mail (null MX)`);
    if (mx.length) {
      const hosts = [...mx]
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.replace(/\.$/, ''))
        .filter((h) => h !== '');
      return { result: 'pass', detail: `${host} has ${mx.length} MX record${mx.length === 1 ? '' : 's'}`, hosts };
    }
  } catch (err) {
    const { failure, message } = lookupFailure(err);
    if (failure === 'nxdomain') return none('fail', `${host} does not exist`);
    if (failure !== 'nodata') return none('unknown', `the MX lookup of ${host} failed: ${message}`);
  }
  for (const type of ['A', 'AAAA']) {
    try {
      const addresses = (await dns.resolve(host, type)) as string[];
      if (addresses.length) return { result: 'pass', detail: `${host} has no MX record; its ${type} record receives mail`, hosts: [host] };
    } catch (err) {
      const { failure, message } = lookupFailure(err);
      if (failure !== 'nodata' && failure !== 'nxdomain') return none('unknown', `the ${type} lookup of ${host} failed: ${message}`);
    }
  }
  return none('fail', `${host} has no MX, A or AAAA record`);
}

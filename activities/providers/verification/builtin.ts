import { isDisposableEmailDomain } from 'disposable-email-domains-js';
import { checkEmail, isGenericMailbox } from '../../../domain/companies/identity';
import type { CheckResult, EmailCheck } from '../../../domain/contacts/email-verification';
import { lookupFailure, type DnsResolver } from '../dns/resolver';
import type { EmailVerifier } from './types';

/**
 * The checks this service makes itself: syntax, a mail host in DNS, a throw-away domain (the
 * disposable-email-domains list, kept up to date by its package) and a role local part. Nothing is
 * sent to the recipient's server.
 */
export function createBuiltinVerifier(deps: { dns: DnsResolver }): EmailVerifier {
  return {
    provider: 'builtin',
    async verify(address: string): Promise<EmailCheck> {
      const syntax = checkEmail(address);
      if (!syntax.ok)
        return {
          syntax: 'fail',
          mx: null,
          disposable: null,
          role: null,
          catch_all: null,
          smtp: null,
          provider: 'builtin',
          detail: `the address ${syntax.reason}`,
        };
      const host = syntax.email.slice(syntax.email.lastIndexOf('@') + 1);
      const disposable: CheckResult = isDisposableEmailDomain(host) || isDisposableEmailDomain(syntax.domain) ? 'fail' : 'pass';
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
      return { syntax: 'pass', mx: mail.result, disposable, role, catch_all: null, smtp: null, provider: 'builtin', detail };
    },
  };
}

/**
 * Whether the host accepts mail: its MX records, or without any its A or AAAA record (the implicit
 * MX of RFC 5321 §5.1). A null MX ("." , RFC 7505) and a name that does not exist fail; a lookup
 * that did not answer is unknown.
 */
export async function mailHost(dns: DnsResolver, host: string): Promise<{ result: CheckResult; detail: string }> {
  try {
    const mx = (await dns.resolve(host, 'MX')) as Array<{ exchange: string; priority: number }>;
    if (mx.length === 1 && (mx[0]!.exchange === '' || mx[0]!.exchange === '.'))
      return { result: 'fail', detail: `${host} declares that it accepts no mail (null MX)` };
    if (mx.length) return { result: 'pass', detail: `${host} has ${mx.length} MX record${mx.length === 1 ? '' : 's'}` };
  } catch (err) {
    const { failure, message } = lookupFailure(err);
    if (failure === 'nxdomain') return { result: 'fail', detail: `${host} does not exist` };
    if (failure !== 'nodata') return { result: 'unknown', detail: `the MX lookup of ${host} failed: ${message}` };
  }
  for (const type of ['A', 'AAAA']) {
    try {
      const addresses = (await dns.resolve(host, type)) as string[];
      if (addresses.length) return { result: 'pass', detail: `${host} has no MX record; its ${type} record receives mail` };
    } catch (err) {
      const { failure, message } = lookupFailure(err);
      if (failure !== 'nodata' && failure !== 'nxdomain') return { result: 'unknown', detail: `the ${type} lookup of ${host} failed: ${message}` };
    }
  }
  return { result: 'fail', detail: `${host} has no MX, A or AAAA record` };
}

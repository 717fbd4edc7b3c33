/**
 * Whether a mailbox's domain can be checked: an ASCII host name of letters, digits and hyphens
 * (RFC 1035 labels of 1..63, 253 in all, two labels at least). Internationalized domains (IDN, in
 * Unicode or as xn-- A-labels) are not supported for sending, so they are refused too.
 */
export function mailDomainProblem(domain: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(domain) || /(^|\.)xn--/i.test(domain)) return `${JSON.stringify(domain)} is an internationalized (IDN) domain: not supported`;
  const name = domain.replace(/\.$/, '');
  const labels = name.split('.');
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  if (name.length === 0 || name.length > 253 || labels.length < 2 || !labels.every((l) => label.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) {
    return `${JSON.stringify(domain)} is not a valid domain name`;
  }
  return null;
}

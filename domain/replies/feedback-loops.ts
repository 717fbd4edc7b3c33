import { getDomain } from 'tldts';

/**
 * The feedback loops whose complaints count toward a mailbox's complaint rate, as data: the exact
 * addresses, or the domains no person has an account at, that the providers' loops send from. A
 * report counts only when it is a structured report (an ARF feedback part, or a JMRP original), comes
 * from one of these senders, and the receiving server's Authentication-Results (the topmost, which
 * our mailbox's provider writes) says DKIM passed for the sender's domain or its parent. Anything
 * else, a person at a webmail provider writing "abuse report" included, still suppresses the address
 * as a complaint but never pauses a mailbox.
 */
export const TRUSTED_FEEDBACK_LOOP_SENDERS: readonly string[] = [
  // Yahoo's Complaint Feedback Loop (ARF), also for AOL since 2019.
  '@arf.mail.yahoo.com',
  // AOL's own loop.
  'scomp@aol.net',
  // Microsoft's Junk Mail Reporting Program (JMRP).
  'staff@hotmail.com',
];

/**
 * Whether a value names a loop sender: an exact address, or '@' and a domain (any address there). A
 * '@' entry must be within a registrable domain: '@co.uk' would trust every domain anyone registers there.
 */
export function isFeedbackLoopSender(value: string): boolean {
  if (!/^(?:[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64})?@(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(value)) return false;
  return !value.startsWith('@') || getDomain(value.slice(1), { allowPrivateDomains: true }) !== null;
}

function within(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}

/** Whether an address is one of the senders (an exact address, or any address at a '@domain' entry). */
function isLoopSender(address: string, senders: readonly string[]): boolean {
  const a = address.toLowerCase();
  const domain = a.slice(a.lastIndexOf('@') + 1);
  return senders.some((s) => (s.startsWith('@') ? within(domain, s.slice(1)) : a === s));
}

/**
 * Whether a structured complaint came from a trusted feedback loop with DKIM aligned to it (see above).
 * `extra` adds the organization's own loops (same form as the list).
 */
export function isTrustedFeedbackLoop(sender: string | null, authenticationResults: string | null, extra: readonly string[] = []): boolean {
  if (!sender || !sender.includes('@') || !authenticationResults) return false;
  if (!isLoopSender(sender, [...TRUSTED_FEEDBACK_LOOP_SENDERS, ...extra.map((e) => e.toLowerCase())])) return false;
  const domain = sender.toLowerCase().slice(sender.lastIndexOf('@') + 1);
  const ar = authenticationResults.slice(0, 4096).toLowerCase();
  for (const m of ar.matchAll(/dkim=pass[^;]{0,300}?header\.(?:d|i)=@?([a-z0-9.-]{1,253})/g)) {
    if (within(domain, m[1]!)) return true;
  }
  return false;
}

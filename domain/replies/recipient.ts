/**
 * A recipient address as bounce notices write it, cleaned to the plain address: "rfc822;" type
 * prefixes, angle brackets and display names, quotes, source routes ("@a,@b:user@host"), X.400
 * forms Exchange writes ("IMCEASMTP-user+40host@domain", "/O=.../CN=..." are no address), qmail's
 * "user@host:" and pipes ("|/usr/bin/...", no address). Answers null when nothing that looks like an
 * address is left. Linear time: one bounded scan, no backtracking pattern.
 */
const MAX_ADDRESS = 320;

export function cleanRecipient(value: string | null | undefined): string | null {
  if (!value) return null;
  let v = value.slice(0, 2 * MAX_ADDRESS).trim();
  const semi = v.indexOf(';');
  if (semi !== -1 && semi < 12 && /^[a-z0-9-]+$/i.test(v.slice(0, semi).trim())) v = v.slice(semi + 1).trim();
  const lt = v.lastIndexOf('<');
  if (lt !== -1) {
    const gt = v.indexOf('>', lt);
    v = v.slice(lt + 1, gt === -1 ? undefined : gt);
  }
  v = v.replace(/^["'\s]+|["'\s.:;,]+$/g, '');
  // A source route: everything up to the last ':' before the mailbox.
  if (v.startsWith('@')) v = v.slice(v.lastIndexOf(':') + 1);
  // X.400 encapsulation of an SMTP address (IMCEASMTP-local+40domain@host).
  const imcea = /^imcea[a-z]*-(.+)@[^@]+$/i.exec(v);
  if (imcea) v = imcea[1]!.replace(/\+40/g, '@').replace(/\+2e/gi, '.').replace(/\+2d/gi, '-').replace(/\+5f/gi, '_');
  if (v.startsWith('|') || v.startsWith('/')) return null;
  const at = v.lastIndexOf('@');
  if (at <= 0 || at === v.length - 1 || v.length > MAX_ADDRESS) return null;
  if (/\s/.test(v)) {
    // "user@host said..." runs: take the word that holds the '@'.
    const word = v.split(/\s+/).find((w) => w.includes('@'));
    return word ? cleanRecipient(word) : null;
  }
  const local = v.slice(0, at);
  const domain = v.slice(at + 1).toLowerCase();
  if (!/^[a-z0-9.-]+\.?[a-z0-9-]*$/.test(domain) || !domain.includes('.')) return null;
  return `${local}@${domain}`.toLowerCase();
}

/** The addresses in a text ("user@host" runs, each cleaned), first seen first, at most `max`. */
export function addressesIn(text: string, max = 20): string[] {
  const out: string[] = [];
  const re = /[^\s<>"'(),;:[\]]{1,64}@[a-z0-9.-]{1,253}/gi;
  for (const m of text.slice(0, 64 * 1024).matchAll(re)) {
    const a = cleanRecipient(m[0]);
    if (a && !out.includes(a)) out.push(a);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Untrusted text as the inbound path keeps it: no NUL (PostgreSQL refuses it in text and jsonb), no
 * lone UTF-16 surrogate (refused in jsonb, and not text), and bounded. Everything that reaches
 * classification or the database from a received message passes here first. Linear time.
 */

/** The most text of one message that reaches classification (rules or model), and that is stored as its body. */
export const MAX_CLASSIFIED_CHARS = 64 * 1024;
/** A subject, a display name: at most this long. */
export const MAX_LINE_CHARS = 998;

// eslint-disable-next-line no-control-regex -- a NUL is one of the unsafe characters
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** NULs removed, lone surrogates replaced by U+FFFD, cut to `max` characters (never inside a surrogate pair). */
export function cleanText(text: string, max: number): string {
  let s = text.length > max + 1 ? text.slice(0, max + 1) : text;
  s = s.replace(UNSAFE, (m) => (m === '\u0000' ? '' : '\uFFFD'));
  if (s.length <= max) return s;
  const cut = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return s.slice(0, cut);
}

export function cleanLine(text: string | null | undefined): string | null {
  if (text == null) return null;
  return cleanText(text, MAX_LINE_CHARS);
}

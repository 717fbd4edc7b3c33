/**
 * Whether a message was sent by a machine rather than written as a reply (RFC 3834 and the usual
 * markers), and whether it is an out-of-office notice. The header lookup answers a header's value by
 * its name in lower case (the first one when repeated), undefined when absent.
 */
export type HeaderLookup = (name: string) => string | undefined;

/**
 * The usual out-of-office subject prefixes of Outlook, Gmail, Exchange and Apple Mail in Dutch,
 * English, German and French. Anchored: the subject starts with one (after an "[EXT]"-style tag) and
 * a ":" or "-" follows, so "Re: Uitbreiding vakantiepark" or "Re: Absence management software" is no
 * notice.
 */
const OOO_SUBJECT = new RegExp(
  `^\\s*(?:\\[[^\\]]{1,20}\\]\\s*)?(?:${[
    'automatic reply',
    'auto[- ]?reply',
    'autoreply',
    'auto[- ]?response',
    'out of (?:the )?office(?: reply| notice)?',
    'ooo',
    'away from (?:the )?office',
    'on vacation',
    'on holiday',
    'on leave',
    'automatisch antwoord',
    'automatisch bericht',
    'automatisch beantwoord',
    'afwezig',
    'afwezigheid',
    'niet aanwezig',
    'buiten kantoor',
    'met vakantie',
    'vakantie',
    'automatische antwort',
    'abwesenheitsnotiz',
    'abwesenheit',
    'abwesend',
    'nicht im büro',
    'außer haus',
    'ausser haus',
    'urlaub',
    'réponse automatique',
    'reponse automatique',
    'absent(?:e)?(?: du bureau)?',
    'absence du bureau',
    "message d'absence",
    'absence',
    'en congés?',
    'en vacances',
  ].join('|')})\\s*(?:[:\\-–]|$)`,
  'i',
);

/** Out-of-office wording in a body (the start of it), nl/en/de/fr. */
const OOO_BODY = new RegExp(
  [
    'out of (?:the )?office',
    "i(?:'m| am) (?:currently )?(?:away|out|on (?:holiday|vacation|leave))",
    'away from (?:the|my) (?:office|desk)',
    'limited access to (?:my )?e-?mail',
    'ik ben (?:momenteel |tot en met |t/m |tot )?(?:afwezig|niet aanwezig|met vakantie|op vakantie|niet op kantoor|buiten kantoor)',
    'afwezig (?:tot|t/m|tot en met)',
    'ben ik (?:weer )?(?:terug|aanwezig|bereikbaar)',
    'ich bin (?:derzeit |bis )?(?:nicht im büro|abwesend|im urlaub|außer haus)',
    'bin ich wieder',
    'abwesenheitsnotiz',
    'je suis (?:actuellement )?(?:absent|absente|en congés?|en vacances)',
    'je serai de retour',
    "message d'absence",
  ].join('|'),
  'i',
);

export function isOutOfOfficeSubject(subject: string | null | undefined): boolean {
  return !!subject && OOO_SUBJECT.test(subject);
}

export function isOutOfOfficeBody(text: string | null | undefined): boolean {
  return !!text && OOO_BODY.test(text.slice(0, 2000));
}

export interface AutoReplyVerdict {
  auto: boolean;
  /** Which marker said so (a header and its value, or the subject), for the triage summary. */
  marker: string | null;
}

/** RFC 3834 Auto-Submitted other than "no", X-Autoreply, X-Autorespond, Precedence auto_reply/bulk/junk, or an out-of-office subject. */
export function detectAutoReply(header: HeaderLookup, subject: string | null | undefined): AutoReplyVerdict {
  const submitted = header('auto-submitted')?.trim().toLowerCase();
  if (submitted && !submitted.startsWith('no')) return { auto: true, marker: `Auto-Submitted: ${submitted}` };
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoresponse']) {
    const v = header(name);
    if (v !== undefined && !/^\s*(?:no|false)\s*$/i.test(v)) return { auto: true, marker: `${name}: ${v.trim()}` };
  }
  const precedence = header('precedence')?.trim().toLowerCase();
  if (precedence && ['auto_reply', 'bulk', 'junk'].includes(precedence)) return { auto: true, marker: `Precedence: ${precedence}` };
  if (isOutOfOfficeSubject(subject)) return { auto: true, marker: 'an out-of-office subject' };
  return { auto: false, marker: null };
}

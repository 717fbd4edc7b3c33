import { isOutOfOfficeBody } from './auto-reply';
import { detectLanguage } from './language';
import { extractReferral } from './referral';
import type { ReplyIntent, ReplyLanguage } from './types';

/**
 * The intent of a reply by rules, with no model: patterns for the common answers in Dutch and English
 * (German and French where cheap), tried in order of what must win when several match: an
 * unsubscribe ("geen interesse meer, verwijder mij" is a removal request, not only a no), an
 * out-of-office notice, a referral (a cue and another person's address), a meeting request, a no, a
 * yes. `text` is the reply without its quoted history.
 */
interface Rule {
  intent: ReplyIntent;
  confidence: number;
  pattern: RegExp;
}

const RULES: Rule[] = [
  {
    intent: 'unsubscribe',
    confidence: 0.95,
    // Whole words on both sides ("remove me" is not "remove meeting notes"); read above the signature.
    pattern:
      /(?<![\p{L}\p{N}])(?:unsubscribe|remove me|take me off|opt[- ]?out|stop (?:e-?mailing|sending|contacting)|do not (?:contact|e-?mail) me|don't (?:contact|e-?mail) me|no more e-?mails|uitschrijven|verwijder (?:mij|me)|verwijder mijn (?:gegevens|adres|e-?mailadres)|graag afmelden|afmelden (?:graag|a\\.u\\.b\\.|aub|svp)|haal (?:mij|me|ons) (?:van|uit) (?:de|uw|jullie) (?:lijst|mailinglijst|bestand)|niet meer (?:mailen|benaderen|contacteren)|geen (?:e-?mails?|berichten|mails) meer|ik wil (?:mij |me )?afmelden|abmelden|austragen|entfernen sie mich|keine e-?mails? mehr|d[ée]sinscri(?:re|vez|vez-moi|ption)|d[ée]sabonn(?:er|ez|ez-moi|ement)|ne plus (?:me )?(?:contacter|écrire)|retirez-moi)(?![\p{L}\p{N}])/iu,
  },
  {
    intent: 'meeting_request',
    confidence: 0.85,
    pattern:
      /\b(?:schedule|set up|book|arrange|plan) (?:a |an )?(?:call|meeting|demo|appointment)|(?:call|meeting|demo) (?:on|at|next)|are you (?:free|available)|would .{0,20}(?:work|suit) for you|(?:let's|lets) (?:meet|talk|have a call)|afspraak (?:maken|inplannen|plannen)|(?:bel|kennismakings?)gesprek|kunnen we (?:een )?(?:afspraak|gesprek|call|belafspraak)|schikt (?:het )?(?:u|je)|past (?:het )?(?:u|je|jou)|bent u (?:beschikbaar|vrij)|ben je (?:beschikbaar|vrij)|langskomen|teams-?(?:call|meeting)|termin (?:vereinbaren|machen)|rendez-vous|un appel/i,
  },
  {
    intent: 'not_interested',
    confidence: 0.9,
    pattern:
      /\b(?:not interested|no interest|no thanks|no, thank you|not (?:a )?(?:fit|priority|relevant) (?:for us|right now|at the moment)|we(?:'re| are) (?:all set|not looking)|we already have|geen interesse|niet ge[ïi]nteresseerd|geen behoefte|nee,? dank(?:je|u)?|hebben (?:we )?al een|is (?:voor ons )?niet (?:relevant|interessant)|kein interesse|nicht interessiert|pas intéressés?|aucun intérêt|pas pour nous)/i,
  },
  {
    intent: 'interested',
    confidence: 0.8,
    pattern:
      /\b(?:interested|sounds (?:good|interesting|great)|tell me more|send (?:me )?(?:more )?(?:info|information|details|a proposal|a quote)|i'd like to (?:know|learn|hear) more|klinkt (?:goed|interessant)|interessant|ge[ïi]nteresseerd|graag meer (?:informatie|info)|stuur (?:mij |me )?(?:meer )?(?:informatie|info|een offerte|een voorstel)|wil (?:graag )?meer weten|interessiert|klingt (?:gut|interessant)|intéress)/i,
  },
];

/**
 * A subject that is itself an unsubscribe request: what a mail client's unsubscribe button sends to
 * the List-Unsubscribe mailto we advertise ("unsubscribe"), or a person's one-word subject. The
 * reply prefixes are removed first ("Re: Unsubscribe").
 */
const UNSUBSCRIBE_SUBJECT =
  /^(?:unsubscribe|unsubscribe me|remove me|opt[- ]?out|afmelden|uitschrijven|abmelden|austragen|d[ée]sinscription|d[ée]sabonnement)[.!]?$/iu;

export function isUnsubscribeSubject(normalizedSubject: string): boolean {
  return normalizedSubject.length <= 40 && UNSUBSCRIBE_SUBJECT.test(normalizedSubject.trim());
}

/**
 * The sign-off and signature: from a line "-- " (RFC 3676), or a short closing line ("Met
 * vriendelijke groet", "Kind regards", ...) on its own, the rest of the text is signature, footer or
 * disclaimer, not what the sender asks.
 */
const SIGN_OFF =
  /^\s*(?:--\s*|met (?:vriendelijke )?groet(?:en)?|vriendelijke groet(?:en)?|groet(?:en|jes)?|mvg|kind regards|best regards|best|regards|warm regards|many thanks|thanks|cheers|mit freundlichen gr(?:ü|ue)(?:ß|ss)en|freundliche gr(?:ü|ue)(?:ß|ss)e|viele gr(?:ü|ue)(?:ß|ss)e|cordialement|bien (?:à vous|cordialement)|sent from my \w+(?: \w+)?)[,.!]?\s*$/i;

export function aboveSignature(text: string): string {
  const lines = text.split('\n');
  // The first line is never the signature ("Thanks," may open a one-line reply only when nothing else is there).
  for (let i = 1; i < lines.length; i++) if (lines[i]!.length <= 60 && SIGN_OFF.test(lines[i]!)) return lines.slice(0, i).join('\n').trim();
  return text;
}

const OOO_RULE = { intent: 'out_of_office' as const, confidence: 0.9 };

export interface RuleVerdict {
  intent: ReplyIntent;
  confidence: number;
  language: ReplyLanguage;
  /** What matched, for the summary. */
  matched: string | null;
}

export function classifyByRules(text: string, senderEmail: string | null, hasTimes = false): RuleVerdict {
  const language = detectLanguage(text);
  const unsubscribe = RULES[0]!.pattern.exec(aboveSignature(text));
  if (unsubscribe) return { intent: 'unsubscribe', confidence: RULES[0]!.confidence, language, matched: unsubscribe[0] };
  if (isOutOfOfficeBody(text)) return { ...OOO_RULE, language, matched: 'out-of-office wording' };
  if (extractReferral(text, senderEmail)) return { intent: 'referral', confidence: 0.85, language, matched: 'another person named with an address' };
  for (const rule of RULES.slice(1)) {
    const m = rule.pattern.exec(text);
    if (m) {
      // A yes with proposed times is a meeting request.
      const intent = rule.intent === 'interested' && hasTimes ? 'meeting_request' : rule.intent;
      return { intent, confidence: rule.confidence, language, matched: m[0] };
    }
  }
  if (hasTimes) return { intent: 'meeting_request', confidence: 0.7, language, matched: 'proposed times' };
  return { intent: 'other', confidence: 0.3, language, matched: null };
}

/** The first sentence or line of the reply, at most 200 characters. */
export function firstWords(text: string): string {
  const body = text
    .split('\n')
    .map((l) => l.trim())
    .filter(
      (l) => l && !/^(?:hi|hey|hello|dear|beste|hoi|hallo|geachte|goedemiddag|goedemorgen|goedendag|bonjour|guten tag|sehr geehrte)\b.{0,40}[,!]?$/i.test(l),
    )
    .join(' ');
  const sentence = /^(.{1,200}?[.!?])(?:\s|$)/.exec(body)?.[1] ?? body.slice(0, 200);
  return sentence.trim();
}

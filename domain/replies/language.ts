import type { ReplyLanguage } from './types';

/** Common words of each language; the language with most hits wins (English on a tie or none). */
const WORDS: Record<ReplyLanguage, string[]> = {
  nl: ['de', 'het', 'een', 'ik', 'je', 'u', 'niet', 'wij', 'we', 'met', 'van', 'voor', 'graag', 'bedankt', 'dank', 'groet', 'groeten', 'tot', 'ben', 'zijn', 'op', 'ons', 'mijn', 'geen', 'maar', 'ook', 'wel', 'kunnen', 'hebben', 'collega', 'vriendelijke', 'terug', 'hoi', 'stuur', 'meer', 'klinkt', 'informatie', 'afspraak', 'uw', 'bent', 'kunt', 'mij', 'verwijder'],
  en: ['the', 'a', 'i', 'you', 'we', 'not', 'with', 'of', 'for', 'thanks', 'thank', 'regards', 'until', 'am', 'are', 'is', 'on', 'our', 'my', 'no', 'but', 'also', 'can', 'have', 'please', 'colleague', 'best', 'back', 'would', 'could'],
  de: ['der', 'die', 'das', 'ich', 'sie', 'nicht', 'wir', 'mit', 'von', 'für', 'danke', 'grüße', 'gruß', 'bis', 'bin', 'sind', 'am', 'unser', 'mein', 'kein', 'aber', 'auch', 'können', 'haben', 'bitte', 'kollege', 'freundlichen', 'wieder'],
  fr: ['le', 'la', 'les', 'un', 'une', 'je', 'vous', 'nous', 'pas', 'avec', 'de', 'pour', 'merci', 'cordialement', "jusqu'au", 'suis', 'sommes', 'est', 'notre', 'mon', 'mais', 'aussi', 'pouvons', 'avons', 'collègue', 'retour', 'bureau'],
};

export function detectLanguage(text: string): ReplyLanguage {
  const tokens = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  let best: ReplyLanguage = 'en';
  let bestScore = 0;
  for (const lang of ['en', 'nl', 'de', 'fr'] as const) {
    const set = new Set(WORDS[lang]);
    const score = tokens.reduce((n, t) => n + (set.has(t) ? 1 : 0), 0);
    if (score > bestScore) [best, bestScore] = [lang, score];
  }
  return best;
}

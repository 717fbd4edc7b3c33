/**
 * The new text of a reply, without the quoted history below it: everything from the first line that
 * starts a quote ("On ... wrote:", "Op ... schreef ...:", "Am ... schrieb ...:", "Le ... a écrit :",
 * an Outlook header block "From:/Van:/Von:/De:" followed by "Sent:/Verzonden:/Gesendet:/Envoyé:",
 * "-----Original Message-----" and its translations, Outlook's underscore rule) is dropped, and so
 * are lines quoted with ">".
 */
const QUOTE_STARTS = [
  /^\s*On\b.{0,200}\bwrote:\s*$/i,
  /^\s*Op\b.{0,200}\bschreef\b.{0,120}:\s*$/i,
  /^\s*Am\b.{0,200}\bschrieb\b.{0,120}:\s*$/i,
  /^\s*Le\b.{0,200}\ba écrit\s*:\s*$/i,
  /^\s*-{2,}\s*(?:Original Message|Oorspronkelijk bericht|Originalnachricht|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}\s*$/i,
  /^\s*_{10,}\s*$/,
];
const HEADER_FROM = /^\s*\*?(?:From|Van|Von|De)\s*:\*?\s/i;
const HEADER_SENT = /^\s*\*?(?:Sent|Date|Verzonden|Datum|Gesendet|Envoyé)\s*:\*?\s/i;

export function stripQuotedHistory(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let end = lines.length;
  // "On ... wrote:" may be wrapped over two lines by the sender's client.
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const joined = i + 1 < lines.length ? `${line} ${lines[i + 1]!.trim()}` : line;
    if (QUOTE_STARTS.some((re) => re.test(line)) || (/^\s*(?:On|Op|Am|Le)\b/i.test(line) && QUOTE_STARTS.slice(0, 4).some((re) => re.test(joined)))) {
      end = i;
      break;
    }
    if (HEADER_FROM.test(line) && lines.slice(i + 1, i + 4).some((l) => HEADER_SENT.test(l))) {
      end = i;
      break;
    }
  }
  return lines
    .slice(0, end)
    .filter((l) => !/^\s*>/.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

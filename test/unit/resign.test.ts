import { resignText } from '../../domain/outreach/draft';

describe('a draft signed again for the mailbox it leaves from', () => {
  const body = 'Beste Jan Jansen,\n\nJan, ik zag uw aanvraag voor de Kerkstraat.\n\nMet vriendelijke groet,\nJan';

  test("only the closing block's line that is exactly the old name changes; the contact's name and the text keep theirs", () => {
    expect(resignText(body, 'Jan', 'Piet')).toBe('Beste Jan Jansen,\n\nJan, ik zag uw aanvraag voor de Kerkstraat.\n\nMet vriendelijke groet,\nPiet');
  });

  test('a new mailbox without a name drops the line; a text not signed with the old name, or no old name, stays as it is', () => {
    expect(resignText(body, 'Jan', '')).toBe('Beste Jan Jansen,\n\nJan, ik zag uw aanvraag voor de Kerkstraat.\n\nMet vriendelijke groet,');
    expect(resignText('Beste Anna,\n\nIk ben Anna de Vries.\n\nGroet,\nAnna', 'Anna de Vries', 'Piet Smit')).toBe(
      'Beste Anna,\n\nIk ben Anna de Vries.\n\nGroet,\nAnna',
    );
    expect(resignText(body, '', 'Piet')).toBe(body);
  });

  test('a name far above the closing block (a line of its own in the text) is not the signature', () => {
    const long = 'Beste heer Jansen,\n\nJan\n\nEen.\n\nTwee.\n\nDrie.\n\nVier.\n\nGroet,\nAnna de Vries';
    expect(resignText(long, 'Jan', 'Piet')).toBe(long);
  });
});

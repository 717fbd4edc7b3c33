import { composeEmail, ComposeInput, IncompleteComplianceSettings } from '../../domain/outreach/compose';
import { UnsubscribeTokens, unsubscribeTokenKey, unsubscribeUrl } from '../../domain/outreach/unsubscribe-token';
import { composeInput } from '../helpers/compose-input';

const MESSAGE_ID = '6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab';
const URL = 'https://outreach.example.nl/u/TOKEN';

const input = (over: Partial<ComposeInput> = {}): ComposeInput => composeInput({ messageId: MESSAGE_ID, unsubscribeUrl: URL, ...over });

describe('headers', () => {
  test('Message-ID from the message id, one List-Unsubscribe with https then mailto, and the RFC 8058 Post header', () => {
    const mail = composeEmail(input());
    expect(mail.headers).toEqual({
      'Message-ID': `<${MESSAGE_ID}@acme-installaties.nl>`,
      'List-Unsubscribe': `<${URL}>, <mailto:afmelden@acme-installaties.nl?subject=afmelden>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(mail.from).toEqual({ address: 'anna@acme-installaties.nl', name: 'Anna de Vries' });
    expect(mail.to).toEqual({ address: 'jan@bouw.nl', name: 'Jan Jansen' });
    expect(mail.subject).toBe('Warmtepompen voor uw 48 woningen');
  });

  test('without an unsubscribe_mailto the mailto is the sending mailbox with subject unsubscribe', () => {
    const mail = composeEmail(input({ compliance: { ...input().compliance, unsubscribe_mailto: null } }));
    expect(mail.headers['List-Unsubscribe']).toBe(`<${URL}>, <mailto:anna@acme-installaties.nl?subject=unsubscribe>`);
  });

  test('the same message composes the same Message-ID every time (a retry is the same message)', () => {
    expect(composeEmail(input()).headers['Message-ID']).toBe(composeEmail(input({ firstToPerson: false })).headers['Message-ID']);
  });
});

describe('every message identifies the sender and offers the opt-out', () => {
  test.each([true, false])('firstToPerson %s: legal name, address and the unsubscribe link below the body', (first) => {
    const { text } = composeEmail(input({ firstToPerson: first }));
    expect(text.startsWith('Beste Jan,\n\nIk las over uw project aan de Dorpsstraat.\n\nMet vriendelijke groet,\nAnna\n\n-- \n')).toBe(true);
    expect(text).toContain('Acme Installaties B.V., Stationsweg 1, 3511 AA Utrecht');
    expect(text).toContain(`Meld u af: ${URL}`);
  });

  test('missing sender name or address refuses to compose; a follow-up needs no privacy URL', () => {
    const c = input().compliance;
    expect(() => composeEmail(input({ compliance: { ...c, sender_legal_name: null, sender_address: ' ' } }))).toThrow(IncompleteComplianceSettings);
    try {
      composeEmail(input({ compliance: { ...c, sender_address: null, privacy_url: null } }));
    } catch (err) {
      expect((err as IncompleteComplianceSettings).missing).toEqual(['sender_address', 'privacy_url']);
    }
    expect(() => composeEmail(input({ firstToPerson: false, compliance: { ...c, privacy_url: null } }))).not.toThrow();
  });
});

describe('the Art. 14 notice', () => {
  test('is on the first message to a person only', () => {
    const first = composeEmail(input());
    const later = composeEmail(input({ firstToPerson: false }));
    expect(first.art14Notice).toBe(true);
    expect(first.text).toContain('Privacy (art. 14 AVG)');
    expect(later.art14Notice).toBe(false);
    expect(later.text).not.toContain('art. 14');
    expect(later.text).not.toContain('Recht van bezwaar');
  });

  test('Dutch: controller, purpose, legitimate interest, data, source, retention, every right, privacy URL', () => {
    const { text } = composeEmail(input());
    for (const part of [
      'Verwerkingsverantwoordelijke: Acme Installaties B.V., Stationsweg 1, 3511 AA Utrecht.',
      'Doel:',
      'gerechtvaardigd belang (art. 6 lid 1 sub f AVG)',
      'Bron: de openbare website van Bouw B.V. (bouw.nl).',
      'Bewaartermijn: 24 maanden',
      'inzage',
      'rectificatie',
      'wissing',
      'beperking van de verwerking',
      'overdraagbaarheid',
      'klacht indienen bij de Autoriteit Persoonsgegevens',
      'Meer informatie: https://acme-installaties.nl/privacy',
    ])
      expect(text).toContain(part);
  });

  test('the right to object stands in its own paragraph, apart from the other rights', () => {
    const { text } = composeEmail(input());
    const paragraphs = text.split('\n\n');
    const objection = paragraphs.filter((p) => p.includes('bezwaar'));
    expect(objection).toHaveLength(1);
    expect(objection[0]).toMatch(/^Recht van bezwaar: /);
    expect(objection[0]).toContain(URL);
    // The other rights are elsewhere, and the objection paragraph names no other right.
    expect(objection[0]).not.toMatch(/inzage|rectificatie|overdraagbaarheid/);
    expect(paragraphs.some((p) => p.includes('inzage') && !p.includes('bezwaar'))).toBe(true);
  });

  test.each([['en-GB'], ['es-ES'], ['']])('English for locale %s', (locale) => {
    const { text } = composeEmail(input({ locale }));
    expect(text).toContain('Privacy notice (Art. 14 GDPR)');
    expect(text).toContain('Controller: Acme Installaties B.V., Stationsweg 1, 3511 AA Utrecht.');
    expect(text).toContain('legitimate interest (Art. 6(1)(f) GDPR)');
    expect(text).toContain('Source: the public website of Bouw B.V. (bouw.nl).');
    expect(text).toContain('Retention: 24 months');
    expect(text).toContain('right to lodge a complaint with a supervisory authority');
    expect(text).toMatch(/\n\nRight to object: you may object at any time/);
    expect(text).toContain(`Unsubscribe: ${URL}`);
    expect(text).not.toContain('AVG');
  });

  test.each([
    [
      'de-DE',
      'Datenschutzhinweis (Art. 14 DSGVO)',
      'Quelle: die öffentliche Website von Bouw B.V. (bouw.nl).',
      `Abmelden: ${URL}`,
      'Diese Nachricht wurde mit Hilfe von KI verfasst.',
    ],
    [
      'fr-FR',
      'Protection des données (art. 14 RGPD)',
      'Source : le site web public de Bouw B.V. (bouw.nl).',
      `Désinscription : ${URL}`,
      'Ce message a été rédigé avec l’aide de l’IA.',
    ],
  ])('%s: the notice and the footer in its language', (locale, heading, source, optOut, ai) => {
    const { text } = composeEmail(input({ locale }));
    for (const part of [heading, source, optOut, ai]) expect(text).toContain(part);
    expect(text).not.toMatch(/Privacy notice|Source: |Unsubscribe: |written with the help of AI|AVG/);
  });

  test('nl-BE and plain nl are Dutch', () => {
    expect(composeEmail(input({ locale: 'nl-BE' })).text).toContain('Privacy (art. 14 AVG)');
    expect(composeEmail(input({ locale: 'nl' })).text).toContain('Privacy (art. 14 AVG)');
  });
});

describe('the AI disclosure footer', () => {
  const c = input().compliance;
  test.each([
    ['footer', true, true],
    ['footer', false, false],
    ['none', true, false],
    ['none', false, false],
  ] as const)('ai_disclosure %s, written by a model or writer %s: footer %s', (setting, aiWritten, shown) => {
    const mail = composeEmail(input({ aiWritten, compliance: { ...c, ai_disclosure: setting } }));
    expect(mail.aiFooter).toBe(shown);
    expect(mail.text.includes('Dit bericht is opgesteld met behulp van AI.')).toBe(shown);
  });

  test('English footer for other locales', () => {
    expect(composeEmail(input({ locale: 'en' })).text).toContain('This message was written with the help of AI.');
  });
});

describe('the unsubscribe token', () => {
  const key = unsubscribeTokenKey({ INTEGRATION_SECRET_KEY: 'a'.repeat(64) })!;
  const tokens = new UnsubscribeTokens(key);

  test('names its message and nothing else; any change to it is refused', () => {
    const token = tokens.sign(MESSAGE_ID);
    expect(token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(tokens.verify(token)).toBe(MESSAGE_ID);
    for (let i = 0; i < token.length; i++) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(tokens.verify(altered)).toBeNull();
    }
    expect(tokens.verify(token.slice(0, -1))).toBeNull();
    expect(tokens.verify(`${token}A`)).toBeNull();
    expect(tokens.verify('')).toBeNull();
  });

  test('another key (another deployment) does not accept it; UNSUBSCRIBE_TOKEN_KEY wins over the derived key', () => {
    const other = new UnsubscribeTokens(unsubscribeTokenKey({ INTEGRATION_SECRET_KEY: 'b'.repeat(64) })!);
    expect(other.verify(tokens.sign(MESSAGE_ID))).toBeNull();
    const own = unsubscribeTokenKey({ UNSUBSCRIBE_TOKEN_KEY: 'c'.repeat(64), INTEGRATION_SECRET_KEY: 'a'.repeat(64) })!;
    expect(own.equals(Buffer.from('c'.repeat(64), 'hex'))).toBe(true);
    expect(key.equals(Buffer.from('a'.repeat(64), 'hex'))).toBe(false); // derived, not the encryption key itself
    expect(unsubscribeTokenKey({})).toBeNull();
  });

  test('the link', () => {
    expect(unsubscribeUrl('https://x.example/', 'T')).toBe('https://x.example/u/T');
  });
});

describe('the recorded lawful basis and header injection (issue 15)', () => {
  test('a consent contact’s notice states Art. 6(1)(a) and the right to withdraw, not legitimate interest', () => {
    const nl = composeEmail(input({ lawfulBasis: 'consent' })).text;
    expect(nl).toContain('uw toestemming (art. 6 lid 1 sub a AVG)');
    expect(nl).toContain('toestemming op elk moment intrekken');
    expect(nl).not.toContain('sub f');
    const en = composeEmail(input({ lawfulBasis: 'consent', locale: 'en-GB' })).text;
    expect(en).toContain('your consent (Art. 6(1)(a) GDPR)');
    expect(en).toContain('withdraw your consent at any time');
    expect(en).not.toContain('6(1)(f)');
    // Legitimate interest (and no basis given): Art. 6(1)(f) and the right to object.
    const li = composeEmail(input({ lawfulBasis: 'legitimate_interest', locale: 'en-GB' })).text;
    expect(li).toContain('legitimate interest (Art. 6(1)(f) GDPR)');
    expect(li).toContain('Right to object');
    expect(li).not.toContain('6(1)(a)');
  });

  test('white space, line breaks and angle brackets in unsubscribe_mailto never reach the header', () => {
    const mail = composeEmail(
      input({ compliance: { ...input().compliance, unsubscribe_mailto: 'mailto:x@acme.nl?subject=x\r\nBcc: a@evil.example\r\n\r\n<X-Injected: 1>' } }),
    );
    expect(mail.headers['List-Unsubscribe']).toBe(`<${URL}>, <mailto:x@acme.nl?subject=xBcc:a@evil.exampleX-Injected:1>`);
    expect(mail.headers['List-Unsubscribe']).not.toMatch(/[\r\n]/);
  });
});

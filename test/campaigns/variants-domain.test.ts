import { createHash } from 'node:crypto';
import { chooseVariant, variantIndex } from '../../domain/outreach/variants';
import { templateDraft, type DraftInput } from '../../domain/outreach/draft';
import { OpenAiCompatibleDraftWriter } from '../../activities/draft-writer';
import { startChatServer } from '../helpers/chat-server';

/** A fixed set of enrollment ids (uuid-shaped, from sha256 of a counter), so the test is the same every run. */
const ids = (n: number, seed = 'enrollment') =>
  Array.from({ length: n }, (_, i) => {
    const h = createHash('sha256').update(`${seed}-${i}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  });

describe('step variants (domain/outreach/variants.ts)', () => {
  const variants = [
    { key: 'a', subject: 'Subject A' },
    { key: 'b', instructions: 'Ask about the permit' },
  ];

  it('splits 100 enrollments over two variants 50 +/- 5', () => {
    const chosen = ids(100).map((id) => chooseVariant(id, 1, variants)!.key);
    const a = chosen.filter((k) => k === 'a').length;
    expect(a).toBeGreaterThanOrEqual(45);
    expect(a).toBeLessThanOrEqual(55);
  });

  it('is even over many random ids, per step, and one step says nothing of the next', () => {
    const many = Array.from({ length: 10_000 }, () => crypto.randomUUID());
    for (const n of [2, 3, 5]) {
      const counts = new Array<number>(n).fill(0);
      for (const id of many) counts[variantIndex(id, 2, n)]!++;
      // Each share within 4 standard deviations of 1/n.
      const sd = Math.sqrt(many.length * (1 / n) * (1 - 1 / n));
      for (const c of counts) expect(Math.abs(c - many.length / n)).toBeLessThan(4 * sd);
    }
    const same = many.filter((id) => variantIndex(id, 1, 2) === variantIndex(id, 2, 2)).length;
    expect(Math.abs(same - 5000)).toBeLessThan(200);
  });

  it('chooses the same variant every time for the same enrollment and step, whatever the case of the id', () => {
    for (const id of ids(50)) {
      expect(chooseVariant(id, 3, variants)).toBe(chooseVariant(id, 3, variants));
      expect(chooseVariant(id.toUpperCase(), 3, variants)).toBe(chooseVariant(id, 3, variants));
    }
    expect(chooseVariant(ids(1)[0]!, 1, [])).toBeNull();
  });

  it("the template writer writes a variant's own subject and instructions", () => {
    const input: DraftInput = {
      channel: 'email',
      position: 1,
      followUp: false,
      instructions: null,
      brief: null,
      campaign: { name: 'Permits', goal: null },
      contact: { fullName: 'Eva de Vries', title: null },
      company: { name: 'Bouw BV' },
      locale: 'en-GB',
      formality: 'formal',
      sender: { name: 'Sam' },
    };
    expect(templateDraft({ ...input, variant: { key: 'a', subject: 'Subject A' } }).subject).toBe('Subject A');
    expect(templateDraft(input).subject).not.toBe('Subject A');
    expect(templateDraft({ ...input, channel: 'phone', instructions: 'Ask about the permit', variant: { key: 'b', subject: null } }).body).toContain(
      'Ask about the permit',
    );
  });
});

test("the model writer (a chat endpoint on 127.0.0.1) is given the variant's subject and instructions, and the variant's subject is kept", async () => {
  const chat = await startChatServer();
  try {
    chat.reply(JSON.stringify({ subject: 'Something else', body: 'Geachte heer, een kort bericht.', confidence: 0.8, risks: [] }));
    const writer = new OpenAiCompatibleDraftWriter({ baseUrl: chat.baseUrl, model: 'm' });
    const input: DraftInput = {
      channel: 'email',
      position: 1,
      followUp: false,
      instructions: 'Lead with the costs',
      brief: null,
      variant: { key: 'costs', subject: 'Lagere bouwkosten' },
      campaign: { name: 'Permits', goal: null },
      contact: { fullName: 'Eva de Vries', title: null },
      company: { name: 'Bouw BV' },
      locale: 'nl-NL',
      formality: 'formal',
      sender: { name: 'Sam' },
    };
    const written = await writer.write(input);
    expect(written.subject).toBe('Lagere bouwkosten');
    const user = chat.requests[0]!.body.messages.find((m: { role: string }) => m.role === 'user').content as string;
    expect(user).toContain('Lead with the costs');
    expect(user).toContain('Subject (use exactly): Lagere bouwkosten');
    // Without a variant subject, the model's own subject stands.
    chat.reply(JSON.stringify({ subject: 'Its own', body: 'Geachte heer.', confidence: 0.8, risks: [] }));
    expect((await writer.write({ ...input, variant: { key: 'costs', subject: null } })).subject).toBe('Its own');
  } finally {
    await chat.close();
  }
});

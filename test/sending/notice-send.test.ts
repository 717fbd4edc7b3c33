import { randomUUID } from 'node:crypto';
import { newOrganization } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { useStack } from '../helpers/stack';

/**
 * The Art. 14 notice through the real send path (the sequence and send workflows on the worker
 * processes, the e-mail caught by a real SMTP server): a message to a Dutch company carries its
 * notice and its footer in Dutch, every line of them, and a company name ending in a full stop
 * ("B.V.") gets no second one.
 */
const { api, smtp } = useStack({ api: true, smtp: true });

/** Words of English that no line of a Dutch notice or footer holds (links taken out first). */
const ENGLISH = /\b(?:the|our|your|you|and|with|public|source|controller|purpose|legal|data|retention|right|notice|unsubscribe|written)\b/i;

test('a Dutch first e-mail: every line of its footer and Art. 14 notice is Dutch, and the source names the company with one full stop', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const company = await o.ok('GET', `/companies/${o.companyId}`);
  expect(company).toMatchObject({ locale: 'nl-NL', name: expect.stringMatching(/ B\.V\.$/) });
  const person = await o.contact({ fullName: 'Pieter Bakker' });
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: `Bron ${randomUUID().slice(0, 4)}`,
    mailboxId: o.mailboxId,
    contactIds: [person.id],
    steps: [{ channel: 'email', delayDays: 0, instructions: 'Introduce us' }],
  });
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const enrollmentId = accepted.result.enrolled[0].enrollmentId as string;
  const draft = await until(
    'the draft',
    async () => (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`))[0],
  );
  await o.ok('POST', `/messages/${draft.id}/approve`, {
    body: 'Geachte heer Bakker,\n\nIk las over uw vergunning.\n\nMet vriendelijke groet,\nSanne',
    subject: 'Uw vergunning',
  });
  await until('the message sent', async () => (await o.ok('GET', `/messages/${draft.id}`)).status === 'sent');
  const [mail] = await smtp.received(person.email);
  const text = mail!.text!;

  const generated = text.slice(text.indexOf('\n-- \n') + 1);
  expect(generated).toContain('Privacy (art. 14 AVG)');
  const lines = generated.split('\n').filter((l) => l.trim() && l.trim() !== '--');
  expect(lines.length).toBeGreaterThan(8);
  for (const line of lines) expect({ line, english: ENGLISH.test(line.replace(/https?:\/\/\S+/g, '')) }).toEqual({ line, english: false });
  expect(lines).toContain(`Bron: de openbare website van ${company.name}`);
  expect(generated).not.toContain('..');
});

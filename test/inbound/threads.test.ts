import { expectProblem, newOrganization, addMember } from '../helpers/api';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { simpleParser } from '../helpers/smtp-server';
import { newUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * Threads: the list and the thread view over the stored messages, assignment, and a reply
 * written by a person that a real SMTP server receives from the thread's mailbox, answering the last
 * inbound message (In-Reply-To, References), sent by the real workers through the send path.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });

const FIRST_ID = '<11111111-1111-4111-8111-111111111111@good-mail.nl>';
const REPLY_ID = '<CAF=antwoord-1@mail.klant.nl>';
const SECOND_REPLY_ID = '<CAF=antwoord-2@mail.klant.nl>';

/** A thread as the sequence and the inbox leave it: the first e-mail sent, two replies received (the last one interested). */
async function seedThread(o: OutreachOrg) {
  const contact = await o.contact({ fullName: 'Jan de Vries' });
  const one = async (text: string, values: unknown[]) => (await owners.query<{ id: string }>(text, values)).rows[0]!.id;
  const threadId = await one(
    `INSERT INTO threads (organization_id, contact_id, mailbox_id, subject) VALUES ($1, $2, $3, 'Uw project Kerkstraat') RETURNING id`,
    [o.orgId, contact.id, o.mailboxId],
  );
  await owners.query(
    `INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, to_address, sent_at, provider_message_id, created_at)
     VALUES ($1, $2, $3, $4, 'outbound', 'sent', 'Uw project Kerkstraat', 'Beste Jan, ...', $5, now() - interval '3 days', $6, now() - interval '3 days')`,
    [o.orgId, threadId, contact.id, o.mailboxId, contact.email, FIRST_ID],
  );
  const inbound = (id: string, refs: string[], ago: string, intent: string) =>
    owners.query(
      `INSERT INTO messages (organization_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, from_address, received_at, internet_message_id, in_reply_to, references_ids, intent, created_at)
       VALUES ($1, $2, $3, $4, 'inbound', 'received', 'Re: Uw project Kerkstraat', 'Klinkt goed', $5, now() - $6::interval, $7, $8, $9, $10, now() - $6::interval)`,
      [o.orgId, threadId, contact.id, o.mailboxId, contact.email, ago, id, refs[refs.length - 1], refs, intent],
    );
  await inbound(REPLY_ID, [FIRST_ID], '2 days', 'other');
  await inbound(SECOND_REPLY_ID, [FIRST_ID, REPLY_ID], '1 day', 'interested');
  return { threadId, contact };
}

test("the thread view, assignment, and a reply from the thread reaching a real SMTP server with In-Reply-To and References, from the first e-mail's mailbox", async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const { threadId, contact } = await seedThread(o);
  const list = await o.ok('GET', `/threads?organizationId=${o.orgId}&intent=interested`);
  expect(list).toEqual([
    expect.objectContaining({
      id: threadId,
      contact_id: contact.id,
      contact_name: 'Jan de Vries',
      mailbox_id: o.mailboxId,
      status: 'open',
      last_intent: 'interested',
      message_count: 3,
      assigned_to: null,
    }),
  ]);
  expect(await o.ok('GET', `/threads?organizationId=${o.orgId}&intent=not_interested`)).toEqual([]);
  const view = await o.ok('GET', `/threads/${threadId}`);
  expect(view.messages.map((m: { direction: string }) => m.direction)).toEqual(['outbound', 'inbound', 'inbound']);

  const member = await addMember(api, o.owner, o.orgId, 'member');
  expect(await o.ok('PATCH', `/threads/${threadId}`, { assignedTo: member.id })).toMatchObject({ assigned_to: member.id });
  expect((await o.ok('GET', `/threads?organizationId=${o.orgId}&assignedTo=${member.id}`)).map((t: { id: string }) => t.id)).toEqual([threadId]);
  const stranger = await newUser();
  const notMember = await o.call('PATCH', `/threads/${threadId}`, { assignedTo: stranger.id });
  expectProblem(notMember, 400, 'VALIDATION_FAILED');
  expect(notMember.body.errors).toEqual([{ path: 'body.assignedTo', message: 'is not a member of the organization' }]);
  const badStatus = await o.call('PATCH', `/threads/${threadId}`, { status: 'replied' });
  expectProblem(badStatus, 400, 'VALIDATION_FAILED');
  expect(badStatus.body.errors[0].path).toBe('body.status');
  expectProblem(await o.call('POST', `/threads/${threadId}/reply`, { body: '' }), 400, 'VALIDATION_FAILED');

  const replied = await api.call('POST', `/threads/${threadId}/reply`, {
    token: member.token,
    body: { body: 'Beste Jan,\n\nDank voor uw reactie. Donderdag om 10:00 past ons goed.\n\nSanne' },
  });
  expect(replied.status).toBe(201);
  expect(replied.body).toMatchObject({
    direction: 'outbound',
    status: 'approved',
    thread_id: threadId,
    mailbox_id: o.mailboxId,
    approved_by: member.id,
    model: null,
    subject: 'Re: Uw project Kerkstraat',
    to_address: contact.email,
  });
  const caught = await until('the reply at the SMTP server', async () => smtp.messages.find((m) => m.to.includes(contact.email)), 90_000);
  const mail = await simpleParser(caught.raw);
  const box = await o.ok('GET', `/mailboxes/${o.mailboxId}`);
  expect(mail.from?.value[0]?.address).toBe(box.address);
  const header = (name: string) =>
    caught.raw
      .toString()
      .match(new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, 'mi'))?.[1]
      ?.replace(/\r\n[ \t]+/g, ' ');
  expect(header('In-Reply-To')).toBe(SECOND_REPLY_ID);
  expect(header('References')).toBe(`${FIRST_ID} ${REPLY_ID} ${SECOND_REPLY_ID}`);
  expect(mail.text).toContain('Donderdag om 10:00');
  const sent = await until(
    'the reply recorded as sent',
    async () => {
      const m = await o.ok('GET', `/messages/${replied.body.id}`);
      return m.status === 'sent' ? m : undefined;
    },
    60_000,
  );
  expect(sent.sent_at).toEqual(expect.any(String));
  // Sent once.
  expect(smtp.messages.filter((m) => m.to.includes(contact.email))).toHaveLength(1);
  expect((await o.ok('PATCH', `/threads/${threadId}`, { status: 'closed', assignedTo: null })).status).toBe('closed');
}, 180_000);

test('another tenant gets 404 on every thread endpoint; a viewer reads but may not reply', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const { threadId } = await seedThread(o);
  const other = await newOrganization(api, 'Ander Thread B.V.');
  const as = (method: string, path: string, body?: unknown) => api.call(method, path, { token: other.owner.token, body });
  expectProblem(await as('GET', `/threads/${threadId}`), 404, 'NOT_FOUND');
  expectProblem(await as('PATCH', `/threads/${threadId}`, { status: 'closed' }), 404, 'NOT_FOUND');
  expectProblem(await as('POST', `/threads/${threadId}/reply`, { body: 'Hallo' }), 404, 'NOT_FOUND');
  expectProblem(await as('GET', `/threads?organizationId=${o.orgId}`), 404, 'NOT_FOUND');
  expect((await as('GET', `/threads?organizationId=${other.orgId}`)).body).toEqual([]);
  const viewer = await addMember(api, o.owner, o.orgId, 'viewer');
  expect((await api.call('GET', `/threads/${threadId}`, { token: viewer.token })).status).toBe(200);
  expectProblem(await api.call('POST', `/threads/${threadId}/reply`, { token: viewer.token, body: { body: 'Hallo' } }), 403, 'FORBIDDEN');
  const { rows } = await owners.query(`SELECT count(*)::int AS n FROM messages WHERE thread_id = $1`, [threadId]);
  expect(rows[0].n).toBe(3);
}, 120_000);

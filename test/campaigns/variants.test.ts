import { chooseVariant } from '../../domain/outreach/variants';
import { expectProblem, newOrganization } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { useStack } from '../helpers/stack';

/**
 * Step variants on the real stack: a step's variants are validated (2 to 5, keys
 * unique, nothing stored otherwise), each enrollment's draft is written from the variant its id
 * chooses and carries variant_key, and GET /campaigns/{id}/variants answers figures that match
 * ones worked out by hand from seeded sent messages, replies and meetings; another tenant gets 404.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });

const variants = [
  { key: 'permit', subject: 'Uw vergunning', instructions: 'Cite the permit' },
  { key: 'costs', subject: 'Lagere bouwkosten', instructions: 'Lead with the costs' },
];

test('variants are validated: 2 to 5, unique keys; a refused campaign stores nothing', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const bad = async (stepVariants: unknown, path: string) => {
    const res = await o.call('POST', '/campaigns', {
      organizationId: o.orgId,
      name: 'Bad',
      steps: [{ channel: 'email', delayDays: 0, variants: stepVariants }],
    });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  };
  await bad([{ key: 'a' }], 'body.steps.0.variants');
  await bad(
    Array.from({ length: 6 }, (_, i) => ({ key: `k${i}` })),
    'body.steps.0.variants',
  );
  await bad([{ key: 'a' }, { key: 'a', subject: 'Other' }], 'body.steps.0.variants');
  await bad([{ key: 'a' }, { key: '' }], 'body.steps.0.variants.1.key');
  await bad([{ key: 'a' }, { key: 'b', subject: 'x'.repeat(201) }], 'body.steps.0.variants.1.subject');
  expect(await o.ok('GET', `/campaigns?organizationId=${o.orgId}`)).toEqual([]);

  const c = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Good',
    steps: [
      { channel: 'email', delayDays: 0, variants },
      { channel: 'email', delayDays: 2 },
    ],
  });
  expect(c.steps.map((s: { variants: unknown }) => s.variants)).toEqual([variants, []]);
  expect((await o.ok('GET', `/campaigns/${c.id}`)).steps[0].variants).toEqual(variants);
});

test("each enrollment's draft is written from the variant its id chooses and carries variant_key", async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const people = await Promise.all(Array.from({ length: 8 }, (_, i) => o.contact({ fullName: `Persoon ${i}` })));
  const campaign = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Varianten',
    mailboxId: o.mailboxId,
    mode: 'review',
    contactIds: people.map((p) => p.id),
    steps: [{ channel: 'email', delayDays: 0, variants }],
  });
  const accepted = await o.ok('POST', `/campaigns/${campaign.id}/accept`, {});
  const enrolled = accepted.result.enrolled as Array<{ enrollmentId: string }>;
  expect(enrolled).toHaveLength(8);
  const drafts = await until(
    'eight drafts',
    async () => {
      const list = await o.ok('GET', `/messages?organizationId=${o.orgId}&campaignId=${campaign.id}&status=pending_approval`);
      return list.length === 8 ? list : undefined;
    },
    120_000,
  );
  for (const e of enrolled) {
    const expected = chooseVariant(e.enrollmentId, 1, variants)!;
    const draft = drafts.find((m: { enrollment_id: string }) => m.enrollment_id === e.enrollmentId);
    expect(draft).toMatchObject({ variant_key: expected.key, subject: expected.subject, step_position: 1 });
    expect((await o.ok('GET', `/messages/${draft.id}`)).variant_key).toBe(expected.key);
  }
});

test('results per variant match the figures worked out by hand; another tenant gets 404', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const opportunity = await o.ok('POST', '/opportunities', { organizationId: o.orgId, summary: 'Nieuwbouw 48 woningen' });
  const c = await o.ok('POST', '/campaigns', {
    organizationId: o.orgId,
    name: 'Gemeten',
    opportunityId: opportunity.id,
    mailboxId: o.mailboxId,
    steps: [
      { channel: 'email', delayDays: 0, variants },
      { channel: 'email', delayDays: 2 },
    ],
  });
  const [step1, step2] = c.steps as Array<{ id: string; sequence_id: string }>;
  const [c1, c2, c3, c4] = await Promise.all([1, 2, 3, 4].map((i) => o.contact({ fullName: `Contact ${i}` })));
  const q = async (text: string, params: unknown[]) => (await owners.query<{ id: string }>(text, params)).rows[0]?.id;
  const enrollment = (contactId: string) =>
    q(`INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status) VALUES ($1, $2, $3, $4, 'completed') RETURNING id`, [
      o.orgId,
      c.id,
      step1!.sequence_id,
      contactId,
    ]);
  const day = (n: number) => new Date(Date.now() - (10 - n) * 86_400_000);
  const sent = (enrollmentId: string, contactId: string, stepId: string, variantKey: string | null, at: Date, status = 'sent') =>
    q(
      `INSERT INTO messages (organization_id, enrollment_id, campaign_id, contact_id, step_id, mailbox_id, direction, channel, status, subject, body, variant_key, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'outbound', 'email', $7, 'S', 'B', $8, $9) RETURNING id`,
      [o.orgId, enrollmentId, c.id, contactId, stepId, o.mailboxId, status, variantKey, status === 'sent' ? at : null],
    );
  // A reply as inbound matching records it: on the enrollment whose message it answers.
  const reply = (enrollmentId: string, contactId: string, intent: string | null, at: Date) =>
    q(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, direction, channel, status, subject, body, intent, received_at) VALUES ($1, $2, $3, 'inbound', 'email', 'received', 'Re: S', 'R', $4, $5) RETURNING id`,
      [o.orgId, enrollmentId, contactId, intent, at],
    );
  const meeting = (contactId: string, status: string, at: Date) =>
    q(
      `INSERT INTO meetings (organization_id, contact_id, title, starts_at, ends_at, status, created_at) VALUES ($1, $2, 'Kennismaking', $3, $3, $4, $5) RETURNING id`,
      [o.orgId, contactId, day(12), status, at],
    );

  // e1 (permit): sent day 0, an interested reply day 1, a meeting booked day 2; the opportunity is won.
  const e1 = (await enrollment(c1!.id))!;
  await sent(e1, c1!.id, step1!.id, 'permit', day(0));
  await reply(e1, c1!.id, 'interested', day(1));
  await meeting(c1!.id, 'proposed', day(2));
  // e2 (permit): sent day 0; an out-of-office day 1 (not a reply); step 2 (no variant) sent day 3; its
  // not_interested reply day 4 answers step 2, not the variant.
  const e2 = (await enrollment(c2!.id))!;
  await sent(e2, c2!.id, step1!.id, 'permit', day(0));
  await reply(e2, c2!.id, 'out_of_office', day(1));
  await sent(e2, c2!.id, step2!.id, null, day(3));
  await reply(e2, c2!.id, 'not_interested', day(4));
  // e3 (costs): sent day 0; a meeting_request day 1; the meeting it led to was cancelled.
  const e3 = (await enrollment(c3!.id))!;
  await sent(e3, c3!.id, step1!.id, 'costs', day(0));
  await reply(e3, c3!.id, 'meeting_request', day(1));
  await meeting(c3!.id, 'cancelled', day(2));
  // e4 (costs): a draft never sent; a reply before anything went out and one without an intent count for nothing.
  const e4 = (await enrollment(c4!.id))!;
  await reply(e4, c4!.id, 'interested', day(-1));
  await sent(e4, c4!.id, step1!.id, 'costs', day(0), 'pending_approval');
  await reply(e4, c4!.id, null, day(1));
  await owners.query(`UPDATE opportunities SET outcome = 'won', outcome_at = now() WHERE id = $1`, [opportunity.id]);

  // Worked out by hand from the rows above.
  expect(await o.ok('GET', `/campaigns/${c.id}/variants`)).toEqual([
    { position: 1, variant_key: 'permit', sent: 2, replied: 1, positive_replies: 1, meetings: 1, won: 1 },
    { position: 1, variant_key: 'costs', sent: 1, replied: 1, positive_replies: 1, meetings: 0, won: 0 },
  ]);

  // Another tenant: 404, as for a campaign that does not exist or a malformed id.
  const other = await outreachOrg(api, newOrganization, smtp);
  expectProblem(await other.call('GET', `/campaigns/${c.id}/variants`), 404, 'NOT_FOUND');
  expectProblem(await o.call('GET', `/campaigns/00000000-0000-4000-8000-000000000000/variants`), 404, 'NOT_FOUND');
  expectProblem(await o.call('GET', `/campaigns/not-a-uuid/variants`), 404, 'NOT_FOUND');
});

test("a contact's reply in a later campaign's thread does not count for an earlier campaign's variant", async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const contact = await o.contact({ fullName: 'Twee Campagnes' });
  const q = async (text: string, params: unknown[]) => (await owners.query<{ id: string }>(text, params)).rows[0]!.id;
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
  // Each campaign: one step with variants, the contact enrolled, the step sent in a thread of its enrollment.
  const campaign = async (name: string, variantKey: string, sentAt: Date) => {
    const c = await o.ok('POST', '/campaigns', {
      organizationId: o.orgId,
      name,
      mailboxId: o.mailboxId,
      steps: [{ channel: 'email', delayDays: 0, variants }],
    });
    const step = c.steps[0] as { id: string; sequence_id: string };
    const enrollmentId = await q(
      `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status) VALUES ($1, $2, $3, $4, 'completed') RETURNING id`,
      [o.orgId, c.id, step.sequence_id, contact.id],
    );
    const threadId = await q(
      `INSERT INTO threads (organization_id, contact_id, enrollment_id, mailbox_id, subject) VALUES ($1, $2, $3, $4, 'S') RETURNING id`,
      [o.orgId, contact.id, enrollmentId, o.mailboxId],
    );
    await q(
      `INSERT INTO messages (organization_id, enrollment_id, thread_id, campaign_id, contact_id, step_id, mailbox_id, direction, channel, status, subject, body, variant_key, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', 'email', 'sent', 'S', 'B', $8, $9) RETURNING id`,
      [o.orgId, enrollmentId, threadId, c.id, contact.id, step.id, o.mailboxId, variantKey, sentAt],
    );
    return { id: c.id as string, enrollmentId, threadId };
  };
  const first = await campaign('Voorjaar', 'permit', daysAgo(120));
  const second = await campaign('Najaar', 'costs', daysAgo(5));
  // Months later the contact answers the second campaign, in its thread, and books a meeting from it.
  await q(
    `INSERT INTO messages (organization_id, contact_id, thread_id, enrollment_id, direction, channel, status, subject, body, intent, received_at)
     VALUES ($1, $2, $3, $4, 'inbound', 'email', 'received', 'Re: S', 'R', 'interested', $5) RETURNING id`,
    [o.orgId, contact.id, second.threadId, second.enrollmentId, daysAgo(4)],
  );
  await q(
    `INSERT INTO meetings (organization_id, contact_id, enrollment_id, thread_id, title, starts_at, ends_at, status, created_at) VALUES ($1, $2, $3, $4, 'Kennismaking', $5, $5, 'proposed', $6) RETURNING id`,
    [o.orgId, contact.id, second.enrollmentId, second.threadId, daysAgo(-3), daysAgo(3)],
  );

  expect(await o.ok('GET', `/campaigns/${first.id}/variants`)).toEqual([
    { position: 1, variant_key: 'permit', sent: 1, replied: 0, positive_replies: 0, meetings: 0, won: 0 },
    { position: 1, variant_key: 'costs', sent: 0, replied: 0, positive_replies: 0, meetings: 0, won: 0 },
  ]);
  expect(await o.ok('GET', `/campaigns/${second.id}/variants`)).toEqual([
    { position: 1, variant_key: 'permit', sent: 0, replied: 0, positive_replies: 0, meetings: 0, won: 0 },
    { position: 1, variant_key: 'costs', sent: 1, replied: 1, positive_replies: 1, meetings: 1, won: 0 },
  ]);
});

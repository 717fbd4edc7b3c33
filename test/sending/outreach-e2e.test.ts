import { randomUUID } from 'node:crypto';
import { createSendActivities } from '../../activities/send';
import { NodemailerSmtpSender } from '../../activities/providers/mail/smtp';
import { SecretBox } from '../../db/secrets';
import { expectProblem, newOrganization, testUnsubscribeTokens } from '../helpers/api';
import { startFeedServer } from '../helpers/feed-server';
import { outreachOrg, until } from '../helpers/outreach';
import { rssFeed } from '../helpers/rss';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * The whole loop on real parts: a permit in an RSS feed becomes a ready opportunity, the pipeline's
 * strategist proposes a campaign, a person accepts it and approves the draft, and the e-mail reaches
 * a real SMTP server on loopback, to what Dutch law allows (the company's published address), with
 * the notice, the footer and the one-click headers. And the gate at send time: a suppression added
 * after the message was scheduled still stops it.
 */
const { api, owners, smtp, workerDb } = useStack({ api: true, owners: true, smtp: true, workerDb: true });

test('a ready opportunity leads, with nobody acting but to accept and approve, to an e-mail received with the right headers, notice and footer', async () => {
  const feeds = await startFeedServer();
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const slug = randomUUID().slice(0, 6);
    const company = await o.ok('POST', '/companies', {
      organizationId: o.orgId,
      name: `Bouwbedrijf Jansen ${slug} B.V.`,
      kvkNumber: String(10000000 + Math.floor(Math.random() * 89999999)),
      countryCode: 'NL',
      genericEmail: `info@jansen-${slug}.nl`,
      phone: '030 123 4567',
      locale: 'nl-NL',
    });
    const jan = await o.ok('POST', '/contacts', {
      organizationId: o.orgId,
      companyId: company.id,
      fullName: 'Jan Jansen',
      title: 'Projectleider',
      email: `jan@jansen-${slug}.nl`,
    });
    await o.ok('PUT', `/contacts/${jan.id}/lawful-basis`, {
      organizationId: o.orgId,
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'b2b',
    });
    const link = `https://zoek.officielebekendmakingen.nl/gmb-2026-${slug}`;
    feeds.set('/permits.xml', {
      body: rssFeed('Permits', [
        {
          guid: `p-${slug}`,
          title: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen',
          description: `Aanvrager ${company.name} (KvK ${company.kvk_number}), bouwsom EUR 14,5 mln.`,
          link,
          pubDate: new Date(),
        },
      ]),
    });
    const src = await o.ok('POST', '/sources', { organizationId: o.orgId, providerKey: 'rss', name: 'Permits', config: { url: `${feeds.url}/permits.xml` } });
    const run = await o.ok('POST', `/sources/${src.id}/run`, {});
    const ingest = await api.temporal.workflow.getHandle(run.workflow_id, run.run_id).result();
    const processed = await api.temporal.workflow.getHandle(`signal/${ingest.signalIds[0]}`).result();
    const opportunityId = processed.stages.find((x: { stage: string }) => x.stage === 'strategist').detail.opportunityId;
    const proposal = await api.temporal.workflow.getHandle(`opportunity/${opportunityId}/strategist`).result();
    expect(proposal).toMatchObject({ created: true });

    // The person's two acts: accept the proposal, approve the draft.
    const accepted = await o.ok('POST', `/campaigns/${proposal.campaignId}/accept`, {});
    expect(accepted.result.enrolled).toEqual([{ enrollmentId: expect.any(String), contactId: jan.id }]);
    expect((await o.ok('GET', `/opportunities/${opportunityId}`)).status).toBe('in_outreach');
    const enrollmentId = accepted.result.enrolled[0].enrollmentId;
    const draft = await until(
      'the first draft',
      async () => (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`))[0],
    );
    expect(draft.to_address).toBe(company.generic_email); // a Dutch company's named people need consent; its published address does not
    expect(draft.why.signal).toMatchObject({ id: ingest.signalIds[0], url: link });
    expect(draft.why.facts.length).toBeGreaterThan(0);
    expect(draft.why.facts.every((f: { sourceUrl: string }) => f.sourceUrl === link)).toBe(true);
    expect(draft.why.compliance.requirements).toContain('art14_notice');
    expect(draft.body).toContain('Aanvraag omgevingsvergunning');
    await o.ok('POST', `/messages/${draft.id}/approve`, {});

    const sent = await until('sent', async () => {
      const m = await o.ok('GET', `/messages/${draft.id}`);
      return m.status === 'sent' ? m : undefined;
    });
    const [mail] = await smtp.received(company.generic_email);
    expect(mail!.messageId).toBe(sent.provider_message_id);
    const header = (k: string) => mail!.headerLines.find((h) => h.key === k)?.line;
    expect(header('list-unsubscribe')).toMatch(/<http[^>]+\/u\/[A-Za-z0-9_-]{64}>, <mailto:/);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail!.text).toContain('Aanvraag omgevingsvergunning');
    expect(mail!.text).toContain('https://acme.example.nl/privacy');
    expect(mail!.text).toContain('Dit bericht is opgesteld met behulp van AI.');
  } finally {
    await feeds.close();
  }
});

test('the compliance gate runs again at send time: a suppression added after scheduling stops the e-mail', async () => {
  const o = await outreachOrg(api, newOrganization, smtp);
  const person = await o.contact();
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
     VALUES ($1, $2, $3, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $4, now()) RETURNING id`,
    [o.orgId, person.id, o.mailboxId, person.email],
  );
  const messageId = rows[0]!.id;
  const send = createSendActivities({
    db: workerDb,
    sender: new NodemailerSmtpSender(),
    secrets: new SecretBox(testEnv('INTEGRATION_SECRET_KEY')),
    tokens: testUnsubscribeTokens(),
    publicBaseUrl: 'http://127.0.0.1:3000',
  });
  // The mailbox's deliverability checked (and passing): the send path then books without a first check.
  expect(await send.scheduleSend({ organizationId: o.orgId, messageId })).toEqual({ state: 'unchecked', mailboxId: o.mailboxId });
  expect(await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {})).toMatchObject({ sendable: true });
  const booked = await send.scheduleSend({ organizationId: o.orgId, messageId });
  expect(booked.state).toBe('scheduled');
  // The person objects a moment before the slot.
  await o.ok('POST', '/compliance/suppressions', { organizationId: o.orgId, scope: 'email', value: person.email, reason: 'objection' });
  const outcome = await send.sendMessage({ organizationId: o.orgId, messageId });
  expect(outcome).toMatchObject({ status: 'skipped' });
  const m = await o.ok('GET', `/messages/${messageId}`);
  expect(m).toMatchObject({ status: 'skipped', sent_at: null });
  expect(m.error).toMatch(/suppressed/);
  expect(await smtp.received(person.email)).toHaveLength(0);
  // Its slot is given back, and sending it again does nothing.
  expect((await owners.query('SELECT count(*)::int AS n FROM send_slots WHERE message_id = $1', [messageId])).rows[0].n).toBe(0);
  expect(await send.sendMessage({ organizationId: o.orgId, messageId })).toMatchObject({ status: 'skipped' });
  expectProblem(await o.call('POST', `/messages/${messageId}/approve`, {}), 409, 'CONFLICT');
});

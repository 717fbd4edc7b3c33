import { randomUUID } from 'node:crypto';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import { workflowIds } from '../../workflows/search-attributes';
import type { mailboxInboxWorkflow } from '../../workflows/mailbox-inbox';
import { newOrganization, startApi } from '../helpers/api';
import { startImapServer, type ImapTestServer } from '../helpers/imap-server';
import { fixture } from '../helpers/reply-fixtures';
import { seedReplyWorld } from '../helpers/reply-world';
import { testEnv } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * mailboxInboxWorkflow through the real worker process, against a real IMAP server: a mailbox with
 * an IMAP server gets its Temporal Schedule (`mailbox/<id>/inbox`), a run stores new mail and
 * acts on it, and a second run reads nothing twice.
 */
const { api, owners } = useStack({ api: true, owners: true });
let imap: ImapTestServer;
const secrets = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));
const taskQueue = () => testEnv('TEMPORAL_TASK_QUEUE');

beforeAll(async () => {
  imap = await startImapServer();
}, 300_000);
afterAll(async () => {
  await imap.close();
});

test('POST /mailboxes with an IMAP server creates its inbox schedule; PATCH imap null deletes it', async () => {
  const starterConfig = { TEMPORAL_TASK_QUEUE: taskQueue(), INGEST_RETRY_INITIAL_INTERVAL_MS: 100, INBOX_POLL_SECONDS: 3600 };
  const withSchedules = await startApi({ workflows: new WorkflowStarter(api.temporal, starterConfig) });
  try {
    const { owner, orgId } = await newOrganization(withSchedules);
    const res = await withSchedules.call('POST', '/mailboxes', {
      token: owner.token,
      body: {
        organizationId: orgId,
        address: `verkoop.${randomUUID().slice(0, 6)}@example.nl`,
        smtp: { host: '127.0.0.1', port: 2525 },
        imap: { host: '127.0.0.1', port: imap.port, username: imap.username },
        secret: imap.password,
      },
    });
    expect(res.status).toBe(201);
    const handle = withSchedules.temporal.schedule.getHandle(workflowIds.mailboxInbox(res.body.id));
    const described = await handle.describe();
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'mailboxInboxWorkflow',
      workflowId: `mailbox/${res.body.id}/inbox`,
      args: [{ organizationId: orgId, mailboxId: res.body.id }],
    });
    expect(described.spec.intervals?.[0]?.every).toBe(3600 * 1000);
    expect(described.policies.overlap).toBe('SKIP');

    const patched = await withSchedules.call('PATCH', `/mailboxes/${res.body.id}`, { token: owner.token, body: { imap: null } });
    expect(patched.status).toBe(200);
    await expect(handle.describe()).rejects.toThrow(/not found/i);
  } finally {
    await withSchedules.close();
  }
});

test('a run reads new mail, stores and acts on it, wakes the sequences; the next run reads nothing twice', async () => {
  const orgId = randomUUID();
  const mailboxId = randomUUID();
  await owners.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Inbox workflow org', gen_random_uuid())`, [orgId]);
  const w = await seedReplyWorld(owners, {
    orgId,
    mailboxId,
    replierEmail: 'jan.devries@bouwbedrijf-devries.nl',
    imap: { host: '127.0.0.1', port: imap.port, username: imap.username },
    secret: secrets.seal(imap.password, mailboxSecretContext(orgId, mailboxId)),
  });
  const run = (n: number) =>
    api.temporal.workflow.execute<typeof mailboxInboxWorkflow>('mailboxInboxWorkflow', {
      taskQueue: taskQueue(),
      workflowId: `${workflowIds.mailboxInbox(mailboxId)}/test-${n}`,
      args: [{ organizationId: orgId, mailboxId, retryInitialIntervalMs: 100 }],
    });
  // The first run starts at the end of the INBOX (what is there is history).
  expect(await run(0)).toMatchObject({ read: 0, stored: 0, error: null });
  await imap.append(fixture('outlook-ooo-nl'));
  await imap.append(fixture('referral-nl'));
  const first = await run(1);
  expect(first).toMatchObject({ read: 2, stored: 2, duplicates: 0, error: null });
  expect(first.changedEnrollmentIds.sort()).toEqual([w.replier.enrollmentId, w.colleague.enrollmentId].sort());
  const intents = (
    await owners.query(`SELECT intent FROM messages WHERE organization_id = $1 AND direction = 'inbound' ORDER BY received_at, created_at`, [orgId])
  ).rows.map((r) => r.intent);
  expect(intents.sort()).toEqual(['out_of_office', 'referral']);
  expect(await run(2)).toMatchObject({ read: 0, stored: 0 });
});

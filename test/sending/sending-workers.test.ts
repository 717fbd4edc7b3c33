import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowIdConflictPolicy, WorkflowNotFoundError } from '@temporalio/client';
import { DateTime } from 'luxon';
import { workflowIds } from '../../workflows/search-attributes';
import type { sendMessageWorkflow } from '../../workflows/send-message';
import { newOrganization } from '../helpers/api';
import { outreachOrg, until, type OutreachOrg } from '../helpers/outreach';
import { testEnv } from '../helpers/tokens';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';
import { useStack } from '../helpers/stack';

/**
 * Sending with several worker processes on a task queue of the test's own: the daily cap is exact
 * (the reservation is taken in PostgreSQL in the transaction that schedules the message), and a
 * worker killed (SIGKILL) in the middle of a hundred sends neither sends a message twice nor loses
 * one: each is sent once, or flagged for checking when the worker died between handing it to the
 * server and recording it.
 */
const { api, owners, smtp } = useStack({ api: true, owners: true, smtp: true });
let temporal: Client;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  temporal = new Client({ connection: await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') }) });
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await temporal?.connection.close();
});

/** n approved e-mails of the organization's mailbox, each to a contact of its own with consent (written as the owner: what approval leaves). */
async function approvedMessages(o: OutreachOrg, n: number): Promise<Array<{ id: string; to: string }>> {
  const out: Array<{ id: string; to: string }> = [];
  for (let i = 0; i < n; i++) {
    const c = await o.contact({ fullName: `Ontvanger ${i}` });
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
       VALUES ($1, $2, $3, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer of mevrouw,', $4, now()) RETURNING id`,
      [o.orgId, c.id, o.mailboxId, c.email],
    );
    out.push({ id: rows[0]!.id, to: c.email });
  }
  return out;
}

async function startSends(queue: string, organizationId: string, ids: string[], opts: { activityTimeoutMs?: number } = {}) {
  await Promise.all(
    ids.map((messageId) =>
      temporal.workflow.start<typeof sendMessageWorkflow>('sendMessageWorkflow', {
        taskQueue: queue,
        workflowId: `${workflowIds.sendMessage(messageId)}`,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        args: [{ organizationId, messageId, retryInitialIntervalMs: 200, ...opts }],
      }),
    ),
  );
}

const statuses = async (ids: string[]) =>
  (
    await owners.query<{ id: string; status: string; needs_check: boolean; scheduled_for: Date | null }>(
      'SELECT id, status, needs_check, scheduled_for FROM messages WHERE id = ANY($1)',
      [ids],
    )
  ).rows;

/** The Message-IDs the SMTP server received, by message id (the local part of `<uuid@domain>`). */
const receivedIds = () => smtp.messages.flatMap((m) => /^Message-ID:\s*<([0-9a-f-]{36})@/im.exec(m.raw.toString())?.[1] ?? []);

async function startWorkers(queue: string, n: number) {
  const started = await Promise.all(Array.from({ length: n }, () => startWorkerProcess(workerEnv(queue))));
  workers.push(...started);
  return started;
}

test('cap 30, four worker processes, 60 approved e-mails: exactly 30 go out today, the rest are booked for the next day', async () => {
  const queue = `cap-${randomUUID()}`;
  await startWorkers(queue, 4);
  const o = await outreachOrg(api, newOrganization, smtp, { dailyCap: 30 });
  // Checked once before: the claim now reads the newest check again (a check of each of the 60 runs
  // at once, one of them failing on a slow DNS answer, would hold the rest for their recheck).
  expect(await o.ok('POST', `/mailboxes/${o.mailboxId}/health`, {})).toMatchObject({ sendable: true });
  const messages = await approvedMessages(o, 60);
  const ids = messages.map((m) => m.id);
  await startSends(queue, o.orgId, ids);

  const rows = await until(
    '30 sent and 30 scheduled',
    async () => {
      const r = await statuses(ids);
      return r.filter((x) => x.status === 'sent').length === 30 && r.filter((x) => x.status === 'scheduled').length === 30 ? r : undefined;
    },
    90_000,
  ).catch(async (e: Error) => {
    const r = await owners.query('SELECT status, error, count(*)::int AS n FROM messages WHERE id = ANY($1) GROUP BY 1, 2', [ids]);
    throw new Error(`${e.message}: ${JSON.stringify(r.rows)}`);
  });
  const today = DateTime.now().setZone('Europe/Amsterdam').toISODate()!;
  const later = rows.filter((r) => r.status === 'scheduled').map((r) => DateTime.fromJSDate(r.scheduled_for!).setZone('Europe/Amsterdam').toISODate()!);
  expect(later.every((d) => d > today)).toBe(true);
  const got = receivedIds().filter((id) => ids.includes(id));
  expect(got).toHaveLength(30);
  expect(new Set(got).size).toBe(30);
  // The mailbox counts them too.
  expect((await o.ok('GET', `/mailboxes/${o.mailboxId}`)).sent_today).toBe(30);
  // The booked sends are ended here; run just before the next day's window opens, they may have gone out already.
  for (const id of rows.filter((r) => r.status === 'scheduled').map((r) => r.id))
    await temporal.workflow
      .getHandle(workflowIds.sendMessage(id))
      .terminate('test over')
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
}, 180_000);

test('SIGKILL of a worker with a send in flight: 0 duplicates; the message in flight is flagged, received once and never sent again; every flagged message accounted for', async () => {
  const queue = `crash-${randomUUID()}`;
  // One worker first, so the send in flight is certainly the victim's.
  const [victim] = await startWorkers(queue, 1);
  const o = await outreachOrg(api, newOrganization, smtp, { dailyCap: 500 });
  const messages = await approvedMessages(o, 60);
  const ids = messages.map((m) => m.id);
  // The server takes this message in full and then stalls its reply: the victim is mid-conversation.
  const inFlight = messages[20]!;
  const stall = smtp.stallAfterData(inFlight.to);
  // The default timeouts (start-to-close 3 minutes for the send, 2 for the rest): the victim's activities
  // are found dead when their liveness heartbeats stop (LIVENESS_TIMEOUT, 20 s), well inside the wait below.
  await startSends(queue, o.orgId, ids);

  await stall.arrived;
  const claimed = (
    await owners.query<{ send_attempted_at: Date | null; status: string }>('SELECT send_attempted_at, status FROM messages WHERE id = $1', [inFlight.id])
  ).rows[0]!;
  expect(claimed).toMatchObject({ status: 'scheduled', send_attempted_at: expect.any(Date) });
  victim!.kill('SIGKILL');
  // The server keeps what it took (as a real one would): the reply just never reaches the dead worker.
  stall.release();
  await startWorkers(queue, 1);

  const killedAt = Date.now();
  const rows = await until(
    'all settled',
    async () => {
      const r = await statuses(ids);
      return r.every((x) => x.status === 'sent' || (x.status === 'failed' && x.needs_check)) ? r : undefined;
    },
    120_000,
  );
  process.stderr.write(`[sigkill] settled ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill\n`);
  const got = receivedIds().filter((id) => ids.includes(id));
  const counts = new Map<string, number>();
  for (const id of got) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicates = [...counts].filter(([, n]) => n > 1);
  const sent = rows.filter((r) => r.status === 'sent').map((r) => r.id);
  const flagged = rows.filter((r) => r.status === 'failed').map((r) => r.id);
  expect(duplicates).toEqual([]);
  expect(sent.length + flagged.length).toBe(ids.length);
  // The message in flight when the worker died: flagged for checking, delivered once, never sent again.
  expect(flagged).toContain(inFlight.id);
  expect(counts.get(inFlight.id)).toBe(1);
  for (const id of sent) expect(counts.get(id)).toBe(1);
  // A flagged message reached the server at most once; those that never did are counted, not called fine.
  for (const id of flagged) expect(counts.get(id) ?? 0).toBeLessThanOrEqual(1);
  const flaggedUndelivered = flagged.filter((id) => !counts.has(id));
  process.stderr.write(
    `[sigkill] sent ${sent.length}, flagged ${flagged.length} (delivered ${flagged.length - flaggedUndelivered.length}, not delivered ${flaggedUndelivered.length}), received ${got.length}\n`,
  );
}, 240_000);

test('a receiving server that takes longer than the liveness timeout to answer: the send stays with its worker (heartbeats) and ends sent, once, not flagged', async () => {
  const queue = `slow-${randomUUID()}`;
  await startWorkers(queue, 1);
  const o = await outreachOrg(api, newOrganization, smtp, { dailyCap: 50 });
  const [message] = await approvedMessages(o, 1);
  const stall = smtp.stallAfterData(message!.to);
  await startSends(queue, o.orgId, [message!.id]);
  await stall.arrived;
  // Past LIVENESS_TIMEOUT (20 s) with no answer: without the worker's heartbeats the server would give the
  // attempt up and retry it, and the retry would find the send in flight and flag it for checking.
  await new Promise((r) => setTimeout(r, 25_000));
  stall.release();
  const [row] = await until(
    'settled',
    async () => {
      const r = await statuses([message!.id]);
      return r[0]!.status === 'sent' || r[0]!.status === 'failed' ? r : undefined;
    },
    60_000,
  );
  expect(row).toMatchObject({ status: 'sent', needs_check: false });
  expect(receivedIds().filter((id) => id === message!.id)).toHaveLength(1);
  const attempts = (await temporal.workflow.getHandle(workflowIds.sendMessage(message!.id)).fetchHistory())
    .events!.filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts.every((a) => a === 1)).toBe(true);
}, 120_000);

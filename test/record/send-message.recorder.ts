import { Pool } from 'pg';
import { workflowIds } from '../../workflows/search-attributes';
import type { sendMessageWorkflow } from '../../workflows/send-message';
import { newOrganization, startApi } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { startSmtpServer } from '../helpers/smtp-server';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/send-message-rechecked.json through the real worker (part of `npm run
 * record-histories`): a send under the send-recheck-at-send patch whose mailbox is held by a setup
 * error (it looks again), then released by a new secret, checked for deliverability, booked and sent.
 */
test('record the rechecked send through the real worker', async () => {
  const api = await startApi();
  const smtp = await startSmtpServer();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const c = await o.contact();
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO messages (organization_id, contact_id, mailbox_id, direction, channel, status, subject, body, to_address, approved_at)
       VALUES ($1, $2, $3, 'outbound', 'email', 'approved', 'Uw project', 'Geachte heer Bakker,', $4, now()) RETURNING id`,
      [o.orgId, c.id, o.mailboxId, c.email],
    );
    const messageId = rows[0]!.id;
    await owners.query(`UPDATE mailboxes SET send_hold_reason = 'the SMTP server refused the mailbox’s login (535)' WHERE id = $1`, [o.mailboxId]);
    const handle = await api.temporal.workflow.start<typeof sendMessageWorkflow>('sendMessageWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId: workflowIds.sendMessage(messageId),
      args: [{ organizationId: o.orgId, messageId, holdRecheckMs: 500, retryInitialIntervalMs: 200 }],
    });
    await until('the held look', async () => (await owners.query('SELECT error FROM messages WHERE id = $1', [messageId])).rows[0]?.error?.includes('held'));
    await o.ok('PATCH', `/mailboxes/${o.mailboxId}`, { secret: 'catcher-needs-no-password' });
    const outcome = await handle.result();
    if (outcome.status !== 'sent') throw new Error(`not sent: ${JSON.stringify(outcome)}`);
    exportHistory(workflowIds.sendMessage(messageId), undefined, 'send-message-rechecked.json');
  } finally {
    await owners.end();
    await smtp.close();
    await api.close();
  }
});

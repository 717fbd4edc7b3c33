import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { mailboxSecretContext, SecretBox } from '../../db/secrets';
import type { mailboxInboxWorkflow } from '../../workflows/mailbox-inbox';
import { workflowIds } from '../../workflows/search-attributes';
import { startImapServer } from '../helpers/imap-server';
import { fixture } from '../helpers/reply-fixtures';
import { seedReplyWorld } from '../helpers/reply-world';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/mailbox-inbox.json through the real worker (part of `npm run
 * record-histories`): an inbox read of two messages over IMAP (a reply and an out-of-office notice),
 * in two batches, that woke the sequences it stopped or paused.
 */

test('record the mailbox inbox history through the real worker', async () => {
  const imap = await startImapServer();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  const connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  try {
    const secrets = new SecretBox(testEnv('INTEGRATION_SECRET_KEY'));
    const orgId = randomUUID();
    const mailboxId = randomUUID();
    await owners.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Recorded inbox', gen_random_uuid())`, [orgId]);
    await seedReplyWorld(owners, {
      orgId,
      mailboxId,
      replierEmail: 'emily.carter@harbourbuild.co.uk',
      imap: { host: '127.0.0.1', port: imap.port, username: imap.username },
      secret: secrets.seal(imap.password, mailboxSecretContext(orgId, mailboxId)),
    });
    await imap.append(fixture('gmail-ooo-en'));
    await imap.append(fixture('reply-quoted-en'));
    const workflowId = `${workflowIds.mailboxInbox(mailboxId)}/recorded`;
    const handle = await new Client({ connection }).workflow.start<typeof mailboxInboxWorkflow>('mailboxInboxWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId,
      args: [{ organizationId: orgId, mailboxId, batchSize: 1, retryInitialIntervalMs: 100 }],
    });
    const result = await handle.result();
    if (result.stored !== 2 || !result.changedEnrollmentIds.length) throw new Error(`unexpected run: ${JSON.stringify(result)}`);
    exportHistory(workflowId, handle.firstExecutionRunId, 'mailbox-inbox.json');
  } finally {
    await connection.close();
    await owners.end();
    await imap.close();
  }
});

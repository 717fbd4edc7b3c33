import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { mailboxHealthWorkflow } from '../../workflows';
import { startApi, newOrganization } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/mailbox-health.json through the real worker (part of `npm run
 * record-histories`): a check of a mailbox on the test DNS server's good domain that held one
 * enrollment's approved send, so the run wakes its sequence.
 */

test('record the mailbox health history through the real worker', async () => {
  const api = await startApi();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const mailbox = await as('POST', '/mailboxes', {
      organizationId: orgId,
      address: 'verkoop@good-mail.nl',
      smtp: { host: '127.0.0.1', port: 2525 },
      secret: 'pw',
    });
    const company = await as('POST', '/companies', { organizationId: orgId, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
    const contact = await as('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Jan Jansen', email: 'jan@jansen-bouw.nl' });
    const one = async (text: string, values: unknown[]) => (await owners.query<{ id: string }>(text, values)).rows[0]!.id;
    const campaign = await one(`INSERT INTO campaigns (organization_id, name, mailbox_id) VALUES ($1, 'Recorded', $2) RETURNING id`, [orgId, mailbox.id]);
    const sequence = await one(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Recorded') RETURNING id`, [orgId, campaign]);
    const enrollment = await one(`INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id) VALUES ($1, $2, $3, $4) RETURNING id`, [
      orgId,
      campaign,
      sequence,
      contact.id,
    ]);
    await owners.query(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, mailbox_id, status, subject, body) VALUES ($1, $2, $3, $4, 'approved', 's', 'b')`,
      [orgId, enrollment, contact.id, mailbox.id],
    );
    const workflowId = `mailbox/${mailbox.id}/health-${randomUUID().slice(0, 8)}`;
    const handle = await api.temporal.workflow.start<typeof mailboxHealthWorkflow>('mailboxHealthWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId,
      args: [{ organizationId: orgId, mailboxId: mailbox.id }],
    });
    const result = await handle.result();
    if (!result.sendable || result.woken !== 1) throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    exportHistory(workflowId, handle.firstExecutionRunId, 'mailbox-health.json');
  } finally {
    await owners.end();
    await api.close();
  }
});

import { Pool } from 'pg';
import { workflowIds } from '../../workflows/search-attributes';
import { startChatServer } from '../helpers/chat-server';
import { newOrganization, startApi } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { startSmtpServer } from '../helpers/smtp-server';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/sequence-*.json and send-message.json through the real worker (part of
 * `npm run record-histories`): a sequence of two e-mail steps (approved and sent; rejected with a
 * redraft, then rejected), a sequence stopped while its draft waits, and the send child of the first;
 * then a sequence whose model key is refused (the enrollment fails), one paused
 * out of office while its draft waits (it resumes by itself), and a run lost and restarted by
 * reconcile/outreach where it stood (reconcile-outreach.json, sequence-restarted.json).
 */

test('record sequence histories through the real worker', async () => {
  const api = await startApi();
  const smtp = await startSmtpServer();
  const chat = await startChatServer();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const steps = [
      { channel: 'email', delayDays: 0, instructions: 'Introduce us' },
      { channel: 'email', delayDays: 0, instructions: 'Follow up' },
    ];
    const [a, b] = [await o.contact(), await o.contact({ fullName: 'Anna de Vries' })];
    const campaign = await o.ok('POST', '/campaigns', { organizationId: o.orgId, name: 'Recorded', mailboxId: o.mailboxId, contactIds: [a.id, b.id], steps });
    const enrolled = (await o.ok('POST', `/campaigns/${campaign.id}/accept`, {})).result.enrolled as Array<{ enrollmentId: string; contactId: string }>;
    const ea = enrolled.find((e) => e.contactId === a.id)!.enrollmentId;
    const eb = enrolled.find((e) => e.contactId === b.id)!.enrollmentId;
    const pending = (enrollmentId: string, step: number) =>
      until(`draft ${step}`, async () =>
        (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`)).find(
          (m: { step_position: number }) => m.step_position === step,
        ),
      );

    const first = await pending(ea, 1);
    await o.ok('POST', `/messages/${first.id}/approve`, { body: 'Geachte heer Bakker, een kort bericht.' });
    const second = await pending(ea, 2);
    await o.ok('POST', `/messages/${second.id}/reject`, { reason: 'korter', redraft: true });
    const redraft = await until('the redraft', async () =>
      (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${ea}&status=pending_approval`)).find(
        (m: { redraft_of: string }) => m.redraft_of === second.id,
      ),
    );
    await o.ok('POST', `/messages/${redraft.id}/reject`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(ea)).result();
    exportHistory(workflowIds.sequence(ea), undefined, 'sequence-completed.json');
    exportHistory(workflowIds.sendMessage(first.id), undefined, 'send-message.json');

    await pending(eb, 1);
    await o.ok('POST', `/enrollments/${eb}/stop`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(eb)).result();
    exportHistory(workflowIds.sequence(eb), undefined, 'sequence-stopped.json');

    // The organization's model refuses its key: the enrollment fails with the reason.
    const refusing = await outreachOrg(api, newOrganization, smtp);
    await refusing.ok('POST', '/integrations', {
      organizationId: refusing.orgId,
      providerKey: 'openai_compatible',
      kind: 'llm',
      config: { baseUrl: chat.baseUrl, model: 'm' },
      secret: 'sk-revoked',
    });
    chat.reply({ status: 401, body: { error: { message: 'invalid api key' } } });
    const person = await refusing.contact();
    const failing = await refusing.ok('POST', '/campaigns', {
      organizationId: refusing.orgId,
      name: 'Refused',
      mailboxId: refusing.mailboxId,
      contactIds: [person.id],
      steps,
    });
    const ef = (await refusing.ok('POST', `/campaigns/${failing.id}/accept`, {})).result.enrolled[0].enrollmentId;
    await api.temporal.workflow.getHandle(workflowIds.sequence(ef)).result();
    exportHistory(workflowIds.sequence(ef), undefined, 'sequence-failed.json');

    // Out of office while the draft waits: resumes by itself at resume_at, then stopped.
    const [c, d] = [await o.contact({ fullName: 'Carla Jansen' }), await o.contact({ fullName: 'Dirk Smit' })];
    const later = await o.ok('POST', '/campaigns', {
      organizationId: o.orgId,
      name: 'Recorded later',
      mailboxId: o.mailboxId,
      contactIds: [c.id, d.id],
      steps,
    });
    const more = (await o.ok('POST', `/campaigns/${later.id}/accept`, {})).result.enrolled as Array<{ enrollmentId: string; contactId: string }>;
    const ec = more.find((e) => e.contactId === c.id)!.enrollmentId;
    const ed = more.find((e) => e.contactId === d.id)!.enrollmentId;
    await pending(ec, 1);
    await owners.query(`UPDATE enrollments SET status = 'paused', pause_reason = 'out_of_office', resume_at = now() + interval '3 seconds' WHERE id = $1`, [
      ec,
    ]);
    await api.temporal.workflow.getHandle(workflowIds.sequence(ec)).signal('enrollmentChanged');
    await until('resumed by itself', async () => (await o.ok('GET', `/enrollments/${ec}`)).status === 'active', 60_000);
    await o.ok('POST', `/enrollments/${ec}/stop`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(ec)).result();
    exportHistory(workflowIds.sequence(ec), undefined, 'sequence-ooo-resumed.json');

    // A run lost while its draft waits: reconcile/outreach restarts it on that draft, which is then stopped.
    await pending(ed, 1);
    await api.temporal.workflow.getHandle(workflowIds.sequence(ed)).terminate('recorded: the run is lost');
    const reconcile = await api.temporal.workflow.start('reconcileOutreachWorkflow', {
      taskQueue: testEnv('TEMPORAL_TASK_QUEUE'),
      workflowId: 'reconcile/outreach-recorded',
      args: [{ olderThanSeconds: 0, organizationId: o.orgId }],
    });
    const reconciled = await reconcile.result();
    if (!reconciled.restarted.includes(ed)) throw new Error(`reconcile did not restart ${ed}: ${JSON.stringify(reconciled)}`);
    await until(
      'the restarted run waits on the draft',
      async () => (await api.temporal.workflow.getHandle(workflowIds.sequence(ed)).describe()).historyLength > 10,
    );
    await o.ok('POST', `/enrollments/${ed}/stop`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(ed)).result();
    exportHistory('reconcile/outreach-recorded', reconcile.firstExecutionRunId, 'reconcile-outreach.json');
    exportHistory(workflowIds.sequence(ed), undefined, 'sequence-restarted.json');
  } finally {
    await owners.end();
    await chat.close();
    await smtp.close();
    await api.close();
  }
});

/**
 * Records test/histories/sequence-variants.json: two e-mail steps with variants;
 * the first draft approved and sent, the second rejected. Its prepareDraft results carry the variant
 * each step chose, which test/platform/replay.test.ts checks against domain/outreach/variants.ts.
 * Alone: `npx jest --testMatch "**\/test/record/sequence.recorder.ts" -t variants`.
 */
test('record a sequence with step variants through the real worker', async () => {
  const api = await startApi();
  const smtp = await startSmtpServer();
  try {
    const o = await outreachOrg(api, newOrganization, smtp);
    const person = await o.contact({ fullName: 'Vera Variant' });
    const steps = [
      {
        channel: 'email',
        delayDays: 0,
        variants: [
          { key: 'permit', subject: 'Uw vergunning', instructions: 'Cite the permit' },
          { key: 'costs', subject: 'Lagere bouwkosten' },
        ],
      },
      {
        channel: 'email',
        delayDays: 0,
        variants: [
          { key: 'short', instructions: 'Two lines' },
          { key: 'case', instructions: 'A customer case' },
          { key: 'call', subject: 'Even bellen?' },
        ],
      },
    ];
    const campaign = await o.ok('POST', '/campaigns', {
      organizationId: o.orgId,
      name: 'Recorded variants',
      mailboxId: o.mailboxId,
      contactIds: [person.id],
      steps,
    });
    const enrollmentId = (await o.ok('POST', `/campaigns/${campaign.id}/accept`, {})).result.enrolled[0].enrollmentId as string;
    const pending = (step: number) =>
      until(`draft ${step}`, async () =>
        (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${enrollmentId}&status=pending_approval`)).find(
          (m: { step_position: number }) => m.step_position === step,
        ),
      );
    const first = await pending(1);
    await o.ok('POST', `/messages/${first.id}/approve`, {});
    const second = await pending(2);
    await o.ok('POST', `/messages/${second.id}/reject`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(enrollmentId)).result();
    exportHistory(workflowIds.sequence(enrollmentId), undefined, 'sequence-variants.json');
  } finally {
    await smtp.close();
    await api.close();
  }
});

import { workflowIds } from '../../workflows/search-attributes';
import { newOrganization, startApi } from '../helpers/api';
import { outreachOrg, until } from '../helpers/outreach';
import { startSmtpServer } from '../helpers/smtp-server';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/sequence-*.json and send-message.json through the real worker (part of
 * `npm run record-histories`): a sequence of two e-mail steps (approved and sent; rejected with a
 * redraft, then rejected), a sequence stopped while its draft waits, and the send child of the first.
 */


test('record sequence histories through the real worker', async () => {
  const api = await startApi();
  const smtp = await startSmtpServer();
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
      (await o.ok('GET', `/messages?organizationId=${o.orgId}&enrollmentId=${ea}&status=pending_approval`)).find((m: { redraft_of: string }) => m.redraft_of === second.id),
    );
    await o.ok('POST', `/messages/${redraft.id}/reject`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(ea)).result();
    exportHistory(workflowIds.sequence(ea), undefined, 'sequence-completed.json');
    exportHistory(workflowIds.sendMessage(first.id), undefined, 'send-message.json');

    await pending(eb, 1);
    await o.ok('POST', `/enrollments/${eb}/stop`, {});
    await api.temporal.workflow.getHandle(workflowIds.sequence(eb)).result();
    exportHistory(workflowIds.sequence(eb), undefined, 'sequence-stopped.json');
  } finally {
    await smtp.close();
    await api.close();
  }
});

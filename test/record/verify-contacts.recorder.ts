import { newOrganization } from '../helpers/api';
import { startReacherServer } from '../helpers/reacher-server';
import { useStack } from '../helpers/stack';
import { exportHistory } from './export-history';

const { api } = useStack({ api: true });

/**
 * Records test/histories/verify-contacts.json (part of `npm run record-histories`): POST
 * /contacts/verify over a company's three contacts, checked by a Reacher stand-in through the stack's
 * worker (one valid, one refused, one on a catch-all domain).
 */
test('record the verify-contacts history through the worker', async () => {
  const reacher = await startReacherServer();
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await as('POST', '/integrations', { organizationId: orgId, providerKey: 'reacher', kind: 'verification', config: { baseUrl: reacher.url }, secret: 'x' });
    const company = await as('POST', '/companies', { organizationId: orgId, name: 'Opname B.V.' });
    for (const email of ['known@refusing-server.nl', 'nobody@refusing-server.nl', 'anyone@accepts-all.nl'])
      await as('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: `Contact ${email}`, email });
    const run = await as('POST', '/contacts/verify', { organizationId: orgId, companyId: company.id });
    const counts = await api.temporal.workflow.getHandle(run.workflow_id).result();
    if (counts.valid !== 1 || counts.invalid !== 1 || counts.risky !== 1) throw new Error(`unexpected counts: ${JSON.stringify(counts)}`);
    exportHistory(run.workflow_id, undefined, 'verify-contacts.json');
  } finally {
    await reacher.close();
  }
});

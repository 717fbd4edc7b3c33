import { newOrganization } from '../helpers/api';
import { startProviderServer } from '../helpers/provider-server';
import { startDropcontactServer } from '../helpers/dropcontact-server';
import { startApolloServer } from '../helpers/apollo-server';
import { useStack } from '../helpers/stack';
import { exportHistory } from './export-history';

const { api } = useStack({ api: true });

/**
 * Records test/histories/enrich-company.json (part of `npm run record-histories`): the enrichment
 * waterfall through the stack's worker. The website names nobody; Apollo finds a role address
 * (risky: the run goes on); Dropcontact's batch answers "not ready" once, then a valid address, and
 * the run stops there.
 */
test('record the enrich-company history through the worker', async () => {
  const site = await startProviderServer();
  site.route('GET', '/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
  site.route('GET', '/', { body: '<html><body><p>Opname.</p></body></html>', contentType: 'text/html; charset=utf-8' });
  const dropcontact = await startDropcontactServer({
    token: 'dc',
    notReadyPolls: 1,
    directory: [{ fullName: 'Tom Opname', company: 'Opname Bouw B.V.', emails: [{ email: 'tom@opnamebouw.nl', qualification: 'nominative@pro' }] }],
  });
  const apollo = await startApolloServer({
    apiKey: 'ap',
    directory: [
      {
        id: 'p1',
        firstName: 'Lisa',
        lastName: 'Opname',
        organizationName: 'Opname Bouw B.V.',
        domain: 'opnamebouw.nl',
        email: 'info@opnamebouw.nl',
        emailStatus: 'verified',
      },
    ],
  });
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body?: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const ap = await as('POST', '/integrations', {
      organizationId: orgId,
      providerKey: 'apollo',
      kind: 'enrichment',
      config: { baseUrl: apollo.url },
      secret: 'ap',
    });
    const dc = await as('POST', '/integrations', {
      organizationId: orgId,
      providerKey: 'dropcontact',
      kind: 'enrichment',
      config: { baseUrl: dropcontact.url },
      secret: 'dc',
    });
    await as('PATCH', '/settings/enrichment', { organizationId: orgId, order: [ap.id, dc.id] });
    const company = await as('POST', '/companies', { organizationId: orgId, name: 'Opname Bouw B.V.', website: `${site.url}/`, domain: 'opnamebouw.nl' });
    for (const fullName of ['Lisa Opname', 'Tom Opname']) await as('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName });
    await as('POST', `/companies/${company.id}/enrich`, {});
    const result = await api.temporal.workflow.getHandle(`company/${company.id}/enrich`).result();
    if (result.stoppedAtStep !== 2) throw new Error(`unexpected run: ${JSON.stringify(result)}`);
    exportHistory(`company/${company.id}/enrich`, undefined, 'enrich-company.json');
  } finally {
    await site.close();
    await dropcontact.close();
    await apollo.close();
  }
});

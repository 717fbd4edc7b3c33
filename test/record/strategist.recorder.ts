import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { startApi, newOrganization } from '../helpers/api';
import { testEnv } from '../helpers/tokens';
import { exportHistory } from './export-history';

/**
 * Records test/histories/strategist*.json through the real worker (part of `npm run record-histories`):
 * a proposal that waited for a running enrichment, and one for an opportunity without a company.
 */

test('record strategist histories through the real worker', async () => {
  const api = await startApi();
  const owners = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const source = await as('POST', '/sources', {
      organizationId: orgId,
      providerKey: 'rss',
      name: 'Recorded',
      config: { url: 'http://127.0.0.1:9/feed.xml' },
    });
    const company = await as('POST', '/companies', {
      organizationId: orgId,
      name: 'Bouwbedrijf Jansen B.V.',
      countryCode: 'NL',
      genericEmail: 'info@jansen-bouw.nl',
      phone: '030 123 4567',
    });
    const contact = await as('POST', '/contacts', {
      organizationId: orgId,
      companyId: company.id,
      fullName: 'Jan Jansen',
      title: 'Projectleider',
      email: 'jan@jansen-bouw.nl',
    });
    await as('PUT', `/contacts/${contact.id}/lawful-basis`, {
      organizationId: orgId,
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'recorded',
    });
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO signals (organization_id, source_id, external_id, title, summary, source_url, dedupe_key, status, company_id)
       VALUES ($1, $2, 'rec-strategist', 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen', 'Bouwsom EUR 14,5 mln.', 'https://example.nl/rec-1', $3, 'ready', $4) RETURNING id`,
      [orgId, source.id, `title:${randomUUID()}`, company.id],
    );
    const opportunity = await as('POST', '/opportunities', { organizationId: orgId, signalId: rows[0]!.id });
    await owners.query(`UPDATE opportunities SET company_id = $2 WHERE id = $1`, [opportunity.id, company.id]);
    await owners.query(`UPDATE companies SET enrichment_status = 'running' WHERE id = $1`, [company.id]);
    const starter = new WorkflowStarter(api.temporal, { TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'), INGEST_RETRY_INITIAL_INTERVAL_MS: 100 });
    const run = await starter.startStrategist(orgId, opportunity.id, company.id, { enrichmentPollMs: 500 });
    await new Promise((r) => setTimeout(r, 1200));
    await owners.query(`UPDATE companies SET enrichment_status = 'done' WHERE id = $1`, [company.id]);
    const result = await api.temporal.workflow.getHandle(run.workflowId, run.runId).result();
    if (!result.created) throw new Error(`no proposal: ${JSON.stringify(result)}`);
    exportHistory(run.workflowId, run.runId, 'strategist-proposal.json');

    const manual = await as('POST', '/opportunities', { organizationId: orgId, summary: 'Manual, no company' });
    const none = await starter.startStrategist(orgId, manual.id, null);
    await api.temporal.workflow.getHandle(none.workflowId, none.runId).result();
    exportHistory(none.workflowId, none.runId, 'strategist-no-company.json');
  } finally {
    await owners.end();
    await api.close();
  }
});

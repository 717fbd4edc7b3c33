import { randomUUID } from 'node:crypto';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { buildBrief } from '../../domain/outreach/brief';
import { planContacts, planSteps, templateWriter, TEMPLATE_WRITER } from '../../domain/outreach/strategist';
import { newOrganization, addMember, expectProblem } from '../helpers/api';
import { startFeedServer } from '../helpers/feed-server';
import { rssFeed } from '../helpers/rss';
import { startChatServer } from '../helpers/chat-server';
import { testEnv, type TestUser } from '../helpers/tokens';
import { useStack } from '../helpers/stack';

/**
 * The brief and the strategist: pure parts first (facts only with their source, persona ranking,
 * the generic address used once, steps from the allowed channels), then strategistWorkflow through
 * the real worker, started by POST /opportunities/{id}/strategist.
 */
const personas = [
  { segment: 'facility manager', titleKeywords: ['facilitair'], priority: 5 },
  { segment: 'contractor', titleKeywords: ['projectleider', 'aannemer'], priority: 10 },
];

describe('the brief (pure)', () => {
  const signal = {
    id: randomUUID(),
    title: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen',
    summary: 'Geraamde bouwsom EUR 14,5 mln, 1.200 m2 bedrijfsruimte.',
    sourceUrl: 'https://zoek.officielebekendmakingen.nl/gmb-2026-1',
    publishedAt: new Date('2026-11-20T08:00:00Z'),
    locationText: 'Merwedekanaalzone, Utrecht',
    municipality: 'Utrecht',
  };
  const input = {
    opportunityId: randomUUID(),
    signal,
    classification: { projectCategory: 'residential', projectStage: 'permit_application' },
    scoreReasons: ['mentions warmtepompen', ''],
    products: [
      { key: 'heat_pumps', name: 'Heat pumps', fitKeywords: ['warmtepomp', 'warmtepompen'] },
      { key: 'solar', name: 'Solar PV', fitKeywords: ['zonnepanelen'] },
    ],
    personas,
  };

  test('facts come from the signal, each with its source URL; the fit and the score reasons beside them', () => {
    const brief = buildBrief(input);
    expect(brief.facts).toEqual([
      { claim: `Published: "${signal.title}"`, sourceUrl: signal.sourceUrl },
      { claim: 'Published on 2026-11-20', sourceUrl: signal.sourceUrl },
      { claim: 'Stated amount: EUR 14,500,000', sourceUrl: signal.sourceUrl },
      { claim: '48 dwellings', sourceUrl: signal.sourceUrl },
      { claim: '1,200 m2 floor area', sourceUrl: signal.sourceUrl },
      { claim: 'Location: Merwedekanaalzone, Utrecht', sourceUrl: signal.sourceUrl },
      { claim: 'Project kind: residential', sourceUrl: signal.sourceUrl },
      { claim: 'Stage: permit application', sourceUrl: signal.sourceUrl },
    ]);
    expect(brief.products).toEqual([{ key: 'heat_pumps', name: 'Heat pumps', matched: ['warmtepomp', 'warmtepompen'] }]);
    expect(brief.scoreReasons).toEqual(['mentions warmtepompen']);
    expect(brief.personas.map((p) => p.segment)).toEqual(['contractor', 'facility manager']);
  });

  test('nothing invented: without a source URL there are no facts', () => {
    expect(buildBrief({ ...input, signal: { ...signal, sourceUrl: null } }).facts).toEqual([]);
    expect(buildBrief({ ...input, signal: null }).facts).toEqual([]);
  });

  test('contacts ranked by persona priority; the generic address used for one contact only; steps from the channels', () => {
    const c = (id: string, title: string | null, usable: Array<'email' | 'phone' | 'linkedin'>, email: 'generic' | 'personal' | null) => ({
      id,
      fullName: id,
      title,
      channels: { usable, email },
      ruleIds: [],
    });
    const planned = planContacts(
      [
        c('ann', 'Facilitair manager', ['email', 'phone', 'linkedin'], 'generic'),
        c('bob', 'Projectleider', ['email', 'phone', 'linkedin'], 'generic'),
        c('cor', 'Directeur', ['email'], 'generic'),
        c('dik', 'Inkoper', ['linkedin'], null),
      ],
      personas,
    );
    expect(planned.map((p) => [p.contact_id, p.persona, p.rank, p.channels, p.email_route])).toEqual([
      ['bob', 'contractor', 1, ['email', 'phone', 'linkedin'], 'generic'],
      ['ann', 'facility manager', 2, ['phone', 'linkedin'], null],
      // cor's only channel was the generic address, already used: left out.
      ['dik', null, 3, ['linkedin'], null],
    ]);
    expect(planSteps(planned)).toEqual([
      { channel: 'email', delayDays: 0 },
      { channel: 'phone', delayDays: 2 },
      { channel: 'linkedin', delayDays: 1 },
      { channel: 'email', delayDays: 3 },
    ]);
    expect(planSteps([{ ...planned[2]! }])).toEqual([{ channel: 'linkedin', delayDays: 0 }]);
    const written = templateWriter({
      brief: buildBrief(input),
      company: { name: 'Bouw B.V.', countryCode: 'NL' },
      contacts: planned,
      steps: planSteps(planned),
      proposition: null,
    });
    expect(written.model).toBe(TEMPLATE_WRITER);
    expect(written.rationale).toContain(signal.title);
    expect(written.rationale).toContain(signal.sourceUrl);
    expect(written.brief).toContain('Stated amount: EUR 14,500,000');
    expect(written.steps.map((s) => s.instructions.length > 20)).toEqual([true, true, true, true]);
  });
});

// Through the worker ----------------------------------------------------------------------------------------
const { api, owners } = useStack({ api: true, owners: true });
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  ({ owner, orgId } = await newOrganization(api, 'Strateeg Installaties B.V.'));
  const profile = await api.call('PATCH', '/settings/industry-profile', {
    token: owner.token,
    body: {
      organizationId: orgId,
      personas: personas.map((p) => ({ segment: p.segment, titleKeywords: p.titleKeywords, priority: p.priority })),
      products: [{ key: 'heat_pumps', name: 'Heat pumps', fitKeywords: ['warmtepomp', 'warmtepompen'] }],
    },
  });
  expect(profile.status).toBe(200);
});

const call = (method: string, path: string, body?: unknown, token = owner.token) => api.call(method, path, { token, body });
async function ok(method: string, path: string, body: unknown) {
  const res = await call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A ready opportunity from a signal with a source URL, linked to a Dutch company with people. */
async function opportunityWithCompany() {
  const source = await ok('POST', '/sources', {
    organizationId: orgId,
    providerKey: 'rss',
    name: `feed ${randomUUID()}`,
    config: { url: 'http://127.0.0.1:9/feed.xml' },
  });
  const company = await ok('POST', '/companies', {
    organizationId: orgId,
    name: `Bouwbedrijf ${randomUUID().slice(0, 6)} B.V.`,
    countryCode: 'NL',
    legalForm: 'bv',
    genericEmail: `info@bouw-${randomUUID().slice(0, 6)}.nl`,
    phone: '030 123 4567',
  });
  const person = async (title: string, basis: boolean) => {
    const c = await ok('POST', '/contacts', {
      organizationId: orgId,
      companyId: company.id,
      fullName: `${title} ${randomUUID().slice(0, 4)}`,
      title,
      email: `${randomUUID().slice(0, 8)}@example.nl`,
    });
    if (basis)
      await ok('PUT', `/contacts/${c.id}/lawful-basis`, {
        organizationId: orgId,
        basis: 'legitimate_interest',
        recipient_kind: 'legal_person',
        country: 'NL',
        assessment: 'balancing test',
      });
    return c;
  };
  const facility = await person('Facilitair manager', true);
  const lead = await person('Projectleider', true);
  const noBasis = await person('Directeur', false);
  const buyer = await person('Inkoper', true);
  const url = `https://zoek.officielebekendmakingen.nl/gmb-${randomUUID()}`;
  const title = 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen';
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO signals (organization_id, source_id, external_id, title, summary, source_url, dedupe_key, status, published_at, location_text, company_id)
     VALUES ($1, $2, $3, $4, 'Geraamde bouwsom EUR 14,5 mln.', $5, $6, 'ready', now(), 'Utrecht', $7) RETURNING id`,
    [orgId, source.id, randomUUID(), title, url, `title:${randomUUID()}`, company.id],
  );
  const opportunity = await ok('POST', '/opportunities', { organizationId: orgId, signalId: rows[0]!.id });
  await owners.query('UPDATE opportunities SET company_id = $2 WHERE id = $1', [opportunity.id, company.id]);
  return { opportunity, company, facility, lead, noBasis, buyer, url, title };
}

test('POST /opportunities/{id}/strategist proposes a campaign: ranked contacts the gate allows, what Dutch law allows, steps, rationale citing the signal', async () => {
  const o = await opportunityWithCompany();
  const res = await call('POST', `/opportunities/${o.opportunity.id}/strategist`, {});
  expect(res.status).toBe(202);
  expect(res.body.workflow_id).toBe(`opportunity/${o.opportunity.id}/strategist`);
  const result = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
  expect(result).toMatchObject({ created: true, campaignId: expect.any(String), waited: 0 });
  const description = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).describe();
  expect(description.typedSearchAttributes.get({ name: 'OpportunityId', type: 'KEYWORD' } as never)).toBe(o.opportunity.id);

  const campaign = (await call('GET', `/campaigns/${result.campaignId}`)).body;
  expect(campaign).toMatchObject({
    status: 'proposed',
    proposed_by: 'agent',
    opportunity_id: o.opportunity.id,
    model: 'template-writer@1.0.0',
    country_code: 'NL',
    mode: 'review',
    persona_keys: ['contractor', 'facility manager'],
    product_keys: ['heat_pumps'],
    created_by: null,
  });
  // Ranked by persona priority; the one without a lawful basis left out.
  expect(campaign.suggested_contact_ids).toEqual([o.lead.id, o.facility.id, o.buyer.id]);
  // A Dutch legal person's named people need consent for e-mail: the generic address (once), phone and LinkedIn.
  expect(campaign.suggested_contacts.map((c: any) => [c.contact_id, c.persona, c.channels, c.email_route])).toEqual([
    [o.lead.id, 'contractor', ['email', 'phone', 'linkedin'], 'generic'],
    [o.facility.id, 'facility manager', ['phone', 'linkedin'], null],
    [o.buyer.id, null, ['phone', 'linkedin'], null],
  ]);
  expect(campaign.suggested_contacts[0].rule_ids).toEqual(['NL-LP-EMAIL-GENERIC', 'NL-LP-PHONE', 'NL-LP-LINKEDIN']);
  expect(campaign.steps.map((s: { channel: string; delay_days: number }) => [s.channel, s.delay_days])).toEqual([
    ['email', 0],
    ['phone', 2],
    ['linkedin', 1],
    ['email', 3],
  ]);
  expect(campaign.rationale).toContain(o.title);
  expect(campaign.rationale).toContain(o.url);
  expect(campaign.brief).toContain('Stated amount: EUR 14,500,000');

  // The brief is stored on the opportunity: every fact with its source.
  const { rows } = await owners.query('SELECT brief FROM opportunities WHERE id = $1', [o.opportunity.id]);
  expect(rows[0].brief.facts.length).toBeGreaterThanOrEqual(4);
  for (const f of rows[0].brief.facts) expect(f.sourceUrl).toBe(o.url);

  // One live proposal: asking again names it.
  const again = await call('POST', `/opportunities/${o.opportunity.id}/strategist`, {});
  expectProblem(again, 409, 'CONFLICT');
  expect(again.body.campaign_id).toBe(result.campaignId);

  // Accepting it enrolls the three (its e-mail step needs a mailbox to send from: without one accept is 409).
  await ok('POST', '/mailboxes', {
    organizationId: orgId,
    address: `verkoop-${randomUUID().slice(0, 8)}@good-mail.nl`,
    smtp: { host: '127.0.0.1', port: 2525, secure: false },
    secret: 'not-used',
  });
  const accepted = await call('POST', `/campaigns/${result.campaignId}/accept`, {});
  expect(accepted.body.result.enrolled.map((e: { contactId: string }) => e.contactId)).toEqual([o.lead.id, o.facility.id, o.buyer.id]);
});

test('after a dismissal the strategist may propose again; it waits for a running enrichment', async () => {
  const o = await opportunityWithCompany();
  const first = await call('POST', `/opportunities/${o.opportunity.id}/strategist`, {});
  const proposal = await api.temporal.workflow.getHandle(first.body.workflow_id, first.body.run_id).result();
  expect((await call('POST', `/campaigns/${proposal.campaignId}/dismiss`, { reason: 'later' })).body.status).toBe('archived');

  await owners.query(`UPDATE companies SET enrichment_status = 'running' WHERE id = $1`, [o.company.id]);
  const starter = new WorkflowStarter(api.temporal, { TEMPORAL_TASK_QUEUE: testEnv('TEMPORAL_TASK_QUEUE'), INGEST_RETRY_INITIAL_INTERVAL_MS: 100 });
  const run = await starter.startStrategist(orgId, o.opportunity.id, o.company.id, { enrichmentPollMs: 300 });
  await new Promise((r) => setTimeout(r, 1500));
  expect((await call('GET', `/campaigns?organizationId=${orgId}&opportunityId=${o.opportunity.id}&status=proposed`)).body).toEqual([]);
  await owners.query(`UPDATE companies SET enrichment_status = 'done' WHERE id = $1`, [o.company.id]);
  const second = await api.temporal.workflow.getHandle(run.workflowId, run.runId).result();
  expect(second.created).toBe(true);
  expect(second.waited).toBeGreaterThanOrEqual(1);
  expect(second.campaignId).not.toBe(proposal.campaignId);
});

test('no proposal without a contact the gate allows; roles and tenancy', async () => {
  const opportunity = await ok('POST', '/opportunities', { organizationId: orgId, summary: 'Manual, no company' });
  const res = await call('POST', `/opportunities/${opportunity.id}/strategist`, {});
  expect(res.status).toBe(202);
  const result = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
  expect(result).toMatchObject({ campaignId: null, created: false, reason: 'the opportunity has no company' });

  const viewer = await addMember(api, owner, orgId, 'viewer');
  expectProblem(await call('POST', `/opportunities/${opportunity.id}/strategist`, {}, viewer.token), 403, 'FORBIDDEN');
  const other = await newOrganization(api, 'Ander B.V.');
  expectProblem(await call('POST', `/opportunities/${opportunity.id}/strategist`, {}, other.owner.token), 404, 'NOT_FOUND');
  expectProblem(await call('POST', `/opportunities/${randomUUID()}/strategist`, {}), 404, 'NOT_FOUND');
});

test('the pipeline: a ready signal naming a company with people gets its brief (drafting) and a proposal (strategist), once', async () => {
  const feeds = await startFeedServer();
  try {
    const { owner: o, orgId: org } = await newOrganization(api, 'Pijplijn B.V.');
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: o.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const company = await as('POST', '/companies', {
      organizationId: org,
      name: 'Bouwbedrijf Jansen B.V.',
      kvkNumber: '12345678',
      countryCode: 'NL',
      genericEmail: 'info@jansen-bouw.nl',
      phone: '030 123 4567',
    });
    const jan = await as('POST', '/contacts', {
      organizationId: org,
      companyId: company.id,
      fullName: 'Jan Jansen',
      title: 'Projectleider',
      email: 'jan@jansen-bouw.nl',
    });
    await as('PUT', `/contacts/${jan.id}/lawful-basis`, {
      organizationId: org,
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'b2b',
    });
    feeds.set('/permits.xml', {
      body: rssFeed('Permits', [
        {
          guid: 'p-1',
          title: 'Aanvraag omgevingsvergunning: nieuwbouw 48 woningen met warmtepompen',
          description: 'Aanvrager Bouwbedrijf Jansen B.V. (KvK 12345678), bouwsom EUR 14,5 mln.',
          link: 'https://zoek.officielebekendmakingen.nl/gmb-2026-p1',
          pubDate: new Date(),
        },
      ]),
    });
    const src = await as('POST', '/sources', { organizationId: org, providerKey: 'rss', name: 'Permits', config: { url: `${feeds.url}/permits.xml` } });
    const run = await api.call('POST', `/sources/${src.id}/run`, { token: o.token, body: {} });
    const outcome = await api.temporal.workflow.getHandle(run.body.workflow_id, run.body.run_id).result();
    const signalId = outcome.signalIds[0];
    const result = await api.temporal.workflow.getHandle(`signal/${signalId}`).result();
    expect(result.stages.map((x: { stage: string }) => x.stage)).toEqual(['classification', 'scoring', 'opportunity', 'enrichment', 'drafting', 'strategist']);
    const strategist = result.stages.find((x: { stage: string }) => x.stage === 'strategist');
    expect(strategist.detail).toMatchObject({ startStrategist: true, companyId: company.id });
    const opportunityId = strategist.detail.opportunityId;
    const proposal = await api.temporal.workflow.getHandle(`opportunity/${opportunityId}/strategist`).result();
    expect(proposal).toMatchObject({ created: true });
    const campaign = (await api.call('GET', `/campaigns/${proposal.campaignId}`, { token: o.token })).body;
    expect(campaign).toMatchObject({ proposed_by: 'agent', opportunity_id: opportunityId, suggested_contact_ids: [jan.id] });
    expect(campaign.rationale).toContain('https://zoek.officielebekendmakingen.nl/gmb-2026-p1');

    // Reprocessing the signal does not propose a second time (the opportunity has had its proposal).
    const again = await api.call('POST', `/signals/${signalId}/reprocess`, { token: o.token, body: { fromStage: 'drafting' } });
    const rerun = await api.temporal.workflow.getHandle(again.body.workflow_id, again.body.run_id).result();
    expect(rerun.stages.find((x: { stage: string }) => x.stage === 'strategist').detail).toMatchObject({
      startStrategist: false,
      reason: 'the opportunity already has a campaign',
    });
  } finally {
    await feeds.close();
  }
});

test("with the organization's model (an OpenAI-compatible llm integration) the model writes goal, brief, rationale and instructions; invalid output is retried", async () => {
  const chat = await startChatServer();
  try {
    const { owner: o, orgId: org } = await newOrganization(api, 'Model B.V.');
    const integration = await api.call('POST', '/integrations', {
      token: o.token,
      body: { organizationId: org, providerKey: 'openai_compatible', kind: 'llm', config: { baseUrl: chat.baseUrl, model: 'gpt-x' }, secret: 'sk-test' },
    });
    expect(integration.status).toBe(201);
    // The fixtures of opportunityWithCompany belong to the suite's organization: build this one's by hand.
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: o.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const source = await as('POST', '/sources', { organizationId: org, providerKey: 'rss', name: 'feed', config: { url: 'http://127.0.0.1:9/feed.xml' } });
    const company = await as('POST', '/companies', {
      organizationId: org,
      name: 'Bouw Model B.V.',
      countryCode: 'NL',
      genericEmail: 'info@bouw-model.nl',
      phone: '030 123 4567',
    });
    const lead = await as('POST', '/contacts', {
      organizationId: org,
      companyId: company.id,
      fullName: 'Lies Leider',
      title: 'Projectleider',
      email: 'lies@bouw-model.nl',
    });
    await as('PUT', `/contacts/${lead.id}/lawful-basis`, {
      organizationId: org,
      basis: 'legitimate_interest',
      recipient_kind: 'legal_person',
      country: 'NL',
      assessment: 'b2b',
    });
    const { rows } = await owners.query<{ id: string }>(
      `INSERT INTO signals (organization_id, source_id, external_id, title, summary, source_url, dedupe_key, status, company_id)
       VALUES ($1, $2, 'm-1', 'Nieuwbouw 48 woningen met warmtepompen', 'Bouwsom EUR 14,5 mln.', 'https://example.nl/m-1', $3, 'ready', $4) RETURNING id`,
      [org, source.id, `title:${randomUUID()}`, company.id],
    );
    const opportunity = await as('POST', '/opportunities', { organizationId: org, signalId: rows[0]!.id });
    await owners.query('UPDATE opportunities SET company_id = $2 WHERE id = $1', [opportunity.id, company.id]);

    const valid = JSON.stringify({
      goal: 'Een kennismaking over warmtepompen voor 48 woningen',
      brief: 'Feiten: bouwsom EUR 14,5 mln (https://example.nl/m-1).',
      rationale: 'Bouw Model B.V. vraagt nu een vergunning aan: "Nieuwbouw 48 woningen met warmtepompen" (https://example.nl/m-1).',
      step_instructions: ['Mail 1', 'Bel', 'LinkedIn', 'Mail 2'],
    });
    chat.reply(JSON.stringify({ goal: 'only a goal' }), valid);
    const res = await api.call('POST', `/opportunities/${opportunity.id}/strategist`, { token: o.token, body: {} });
    const result = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
    expect(result.created).toBe(true);
    const campaign = (await api.call('GET', `/campaigns/${result.campaignId}`, { token: o.token })).body;
    expect(campaign).toMatchObject({
      model: 'test-model-2026-01',
      prompt_key: 'campaign-strategist',
      prompt_version: '1',
      goal: 'Een kennismaking over warmtepompen voor 48 woningen',
      proposed_by: 'agent',
    });
    expect(campaign.prompt_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(campaign.steps.map((x: { instructions: string }) => x.instructions)).toEqual(['Mail 1', 'Bel', 'LinkedIn', 'Mail 2']);
    // The invalid answer was retried; the model saw the brief's facts with their sources.
    expect(chat.requests).toHaveLength(2);
    expect(chat.requests[1]!.headers.authorization).toBe('Bearer sk-test');
    expect(chat.requests[1]!.body.messages[1].content).toContain('Stated amount: EUR 14,500,000 [https://example.nl/m-1]');
  } finally {
    await chat.close();
  }
});

test("the strategist proposes the organization's active, sendable mailboxes as the pool (a paused one left out)", async () => {
  const box = async () =>
    (
      await ok('POST', '/mailboxes', {
        organizationId: orgId,
        address: `pool-${randomUUID().slice(0, 8)}@good-mail.nl`,
        smtp: { host: '127.0.0.1', port: 2525, secure: false },
        secret: 'not-used',
      })
    ).id as string;
  const [kept, paused, alsoKept] = [await box(), await box(), await box()];
  await ok('POST', `/mailboxes/${paused}/pause`, { reason: 'warming elsewhere' });
  const expected = (
    await owners.query<{ id: string }>(
      `SELECT id FROM mailboxes WHERE organization_id = $1 AND status = 'active' AND sendable IS DISTINCT FROM false ORDER BY created_at, id`,
      [orgId],
    )
  ).rows.map((r) => r.id);
  expect(expected).toEqual(expect.arrayContaining([kept, alsoKept]));
  expect(expected).not.toContain(paused);
  const o = await opportunityWithCompany();
  const res = await call('POST', `/opportunities/${o.opportunity.id}/strategist`, {});
  const result = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
  const campaign = (await call('GET', `/campaigns/${result.campaignId}`)).body;
  expect(campaign).toMatchObject({ mailbox_ids: expected, mailbox_id: expected[0] });
});

test("the strategist proposes sendIn recipient when a suggested contact's zone differs from the pool's, else mailbox; accept keeps it", async () => {
  await ok('POST', '/mailboxes', {
    organizationId: orgId,
    address: `ams-${randomUUID().slice(0, 8)}@good-mail.nl`,
    timezone: 'Europe/Amsterdam',
    smtp: { host: '127.0.0.1', port: 2525, secure: false },
    secret: 'not-used',
  });
  const propose = async (o: Awaited<ReturnType<typeof opportunityWithCompany>>) => {
    const res = await call('POST', `/opportunities/${o.opportunity.id}/strategist`, {});
    const result = await api.temporal.workflow.getHandle(res.body.workflow_id, res.body.run_id).result();
    return (await call('GET', `/campaigns/${result.campaignId}`)).body;
  };
  // A Dutch company: every zone is the pool's (the organization's mailboxes are all in Amsterdam's zone).
  const zones = (await owners.query<{ timezone: string }>(`SELECT DISTINCT timezone FROM mailboxes WHERE organization_id = $1`, [orgId])).rows.map(
    (r) => r.timezone,
  );
  expect(zones).toEqual(['Europe/Amsterdam']);
  expect((await propose(await opportunityWithCompany())).send_in).toBe('mailbox');
  // The same company in New York (PATCH /companies timezone): recipient time, kept by accept.
  const abroad = await opportunityWithCompany();
  await ok('PATCH', `/companies/${abroad.company.id}`, { timezone: 'America/New_York' });
  const proposed = await propose(abroad);
  expect(proposed.send_in).toBe('recipient');
  const accepted = await call('POST', `/campaigns/${proposed.id}/accept`, {});
  expect(accepted.status).toBe(200);
  expect(accepted.body.campaign.send_in).toBe('recipient');
});

import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { newOrganization, addMember, startApi, type TestApi } from '../helpers/api';
import { capturedLogger } from '../helpers/log-capture';
import { useStack } from '../helpers/stack';
import type { TestUser } from '../helpers/tokens';

jest.setTimeout(60_000);

/**
 * The service as an MCP server, through the official TypeScript SDK's client: over streamable HTTP
 * (POST /mcp on a running API) and over stdio (`npm run mcp` against that API). Tool answers are
 * the API's answers, under the caller's role and tenancy; a person's act answers an id unless the
 * organization allows it; every tool call is in the request log with its caller.
 */
const { owners } = useStack({ owners: true });
let api: TestApi;
let log: ReturnType<typeof capturedLogger>;
let owner: TestUser;
let orgId: string;
let companyId: string;
let draftId: string;
const clients: Client[] = [];

beforeAll(async () => {
  log = capturedLogger('info');
  api = await startApi({ logger: log.logger });
  ({ owner, orgId } = await newOrganization(api, 'Assistent B.V.'));
  const company = await api.call('POST', '/companies', {
    token: owner.token,
    body: { organizationId: orgId, name: 'Bouw Assistent B.V.', domain: 'bouw-assistent.nl' },
  });
  companyId = company.body.id;
  const contact = await api.call('POST', '/contacts', {
    token: owner.token,
    body: { organizationId: orgId, companyId, fullName: 'Pieter Bakker', email: 'pieter@bouw-assistent.nl' },
  });
  // A draft waiting for approval (as a sequence leaves it), written here so no run acts on it.
  const { rows } = await owners.query<{ id: string }>(
    `INSERT INTO messages (organization_id, contact_id, direction, channel, status, subject, body, to_address)
     VALUES ($1, $2, 'outbound', 'email', 'pending_approval', 'Uw project', 'Geachte heer Bakker,', 'pieter@bouw-assistent.nl') RETURNING id`,
    [orgId, contact.body.id],
  );
  draftId = rows[0]!.id;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await api.close();
});

async function httpClient(credential: string): Promise<Client> {
  const client = new Client({ name: 'outreach-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
  clients.push(client);
  return client;
}

async function apiKey(role: 'viewer' | 'member' | 'admin'): Promise<string> {
  const res = await api.call('POST', '/api-keys', { token: owner.token, body: { organizationId: orgId, name: `assistant ${role}`, role } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

/** A tool's answer as JSON, with whether it is an error. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }> {
  const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  return { isError: res.isError === true, body: JSON.parse(res.content[0]!.text) };
}

test('over streamable HTTP the tools are the API’s operations, and their answers are the API’s answers', async () => {
  const client = await httpClient(owner.token);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of [
    'listSignals',
    'getSignal',
    'listOpportunities',
    'listCompanies',
    'getContactChannels',
    'listCampaigns',
    'listMessages',
    'editMessage',
    'approveMessage',
    'acceptCampaign',
    'listThreads',
  ])
    expect(names).toContain(name);
  // Credentials, memberships, the settings that widen what assistants may do, public pages and the endpoint itself are not tools.
  for (const name of [
    'createApiKey',
    'addOrganizationMember',
    'updateMcpSettings',
    'getMetrics',
    'postMcp',
    'showUnsubscribePage',
    'createMailbox',
    'updateWebhookEndpoint',
    'updateComplianceSettings',
    'removeSuppression',
    'createIntegration',
  ])
    expect(names).not.toContain(name);
  const getCompany = tools.find((t) => t.name === 'getCompany')!;
  expect(getCompany.inputSchema).toMatchObject({ type: 'object', properties: { companyId: { type: 'string', format: 'uuid' } }, required: ['companyId'] });
  expect(tools.find((t) => t.name === 'listCompanies')!.annotations).toMatchObject({ readOnlyHint: true });

  const listed = await call(client, 'listCompanies', { organizationId: orgId });
  expect(listed).toEqual({ isError: false, body: (await api.call('GET', `/companies?organizationId=${orgId}`, { token: owner.token })).body });
  const one = await call(client, 'getCompany', { companyId });
  expect(one).toEqual({ isError: false, body: (await api.call('GET', `/companies/${companyId}`, { token: owner.token })).body });
  const inbox = await call(client, 'listMessages', { organizationId: orgId, status: 'pending_approval' });
  expect(inbox.body.map((m: { id: string }) => m.id)).toEqual([draftId]);

  // Bad input is the API's problem, as a tool error.
  const bad = await call(client, 'listCompanies', { organizationId: 'not-a-uuid' });
  expect(bad).toMatchObject({ isError: true, body: { status: 400, code: 'VALIDATION_FAILED' } });
  expect(await call(client, 'getCompany', {})).toMatchObject({ isError: true, body: { status: 400 } });

  // The same call again (an assistant retrying a call whose answer it lost) is done once.
  const made = await call(client, 'createCompany', { organizationId: orgId, name: 'Eenmalig B.V.' });
  expect(made.isError).toBe(false);
  expect(await call(client, 'createCompany', { organizationId: orgId, name: 'Eenmalig B.V.' })).toEqual(made);
  const all = (await api.call('GET', `/companies?organizationId=${orgId}`, { token: owner.token })).body as Array<{ name: string }>;
  expect(all.filter((c) => c.name === 'Eenmalig B.V.')).toHaveLength(1);

  // A resource: the approval inbox.
  const resource = await client.readResource({ uri: `outreach://organizations/${orgId}/approval-inbox` });
  expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(inbox.body);
});

test('another tenant’s ids are not found, a viewer key cannot edit a draft, and approving answers an id until the organization allows it', async () => {
  const other = await newOrganization(api, 'Ander Assistent B.V.');
  const stranger = await httpClient(other.owner.token);
  expect(await call(stranger, 'getCompany', { companyId })).toMatchObject({ isError: true, body: { status: 404, code: 'NOT_FOUND' } });
  expect(await call(stranger, 'editMessage', { messageId: draftId, body: 'Overgenomen' })).toMatchObject({ isError: true, body: { status: 404 } });
  expect(await call(stranger, 'approveMessage', { messageId: draftId })).toMatchObject({ isError: true, body: { status: 404 } });

  const viewer = await httpClient(await apiKey('viewer'));
  expect(await call(viewer, 'editMessage', { messageId: draftId, body: 'Beste Pieter,' })).toMatchObject({
    isError: true,
    body: { status: 403, code: 'FORBIDDEN' },
  });
  expect((await api.call('GET', `/messages/${draftId}`, { token: owner.token })).body.body).toBe('Geachte heer Bakker,');

  const member = await httpClient(await apiKey('member'));
  // An edit that claims what no fact supports is kept, with the claim in its risks for the person who approves.
  const invented = await call(member, 'editMessage', { messageId: draftId, body: 'Beste Pieter, Heijmans bouwt 48 woningen voor € 3 mln.' });
  expect(invented.body.why.risks).toEqual(expect.arrayContaining([expect.stringMatching(/^unsupported_claim: /)]));
  const edited = await call(member, 'editMessage', { messageId: draftId, body: 'Beste Pieter,' });
  expect(edited).toMatchObject({
    isError: false,
    body: { id: draftId, status: 'pending_approval', body: 'Beste Pieter,', original_body: 'Geachte heer Bakker,' },
  });
  expect(edited.body.why.risks).toEqual([]);

  // allowApprove off (the default): the id for a person, and the draft still waits.
  const held = await call(member, 'approveMessage', { messageId: draftId });
  expect(held).toEqual({
    isError: false,
    body: expect.objectContaining({
      action: 'person_required',
      operation: 'approveMessage',
      id: draftId,
      organization_id: orgId,
      how: `POST /messages/${draftId}/approve`,
    }),
  });
  // Changing a campaign (its mode, its contacts) is a person's act too.
  const campaign = await api.call('POST', '/campaigns', {
    token: owner.token,
    body: { organizationId: orgId, name: 'Handmatig', steps: [{ channel: 'email', delayDays: 0 }] },
  });
  expect(await call(member, 'patchCampaign', { campaignId: campaign.body.id, mode: 'auto' })).toMatchObject({
    isError: false,
    body: { action: 'person_required', id: campaign.body.id },
  });
  expect((await api.call('GET', `/campaigns/${campaign.body.id}`, { token: owner.token })).body.mode).toBe(campaign.body.mode);
  // A path id that is not an id never becomes another path.
  expect(await call(member, 'getCompany', { companyId: '..' })).toMatchObject({ isError: true, body: { status: 400 } });
  expect((await api.call('GET', `/messages/${draftId}`, { token: owner.token })).body.status).toBe('pending_approval');

  // Allowed: still only within the role (a viewer key is refused), then a member key approves.
  const allow = await api.call('PATCH', '/settings/mcp', { token: owner.token, body: { organizationId: orgId, allowApprove: true } });
  expect(allow.body).toEqual({ organization_id: orgId, allow_approve: true });
  expect(await call(viewer, 'approveMessage', { messageId: draftId })).toMatchObject({ isError: true, body: { status: 403 } });
  // A key may not approve words of its own that no fact supports.
  expect(await call(member, 'approveMessage', { messageId: draftId, body: 'Beste Pieter, de bouwsom is € 9 mln.' })).toMatchObject({
    isError: true,
    body: { status: 409 },
  });
  // Nor a draft that carries such words already: edit first, approve second.
  await call(member, 'editMessage', { messageId: draftId, body: 'Beste Pieter, de bouwsom is € 9 mln.' });
  expect(await call(member, 'approveMessage', { messageId: draftId })).toMatchObject({ isError: true, body: { status: 409 } });
  await call(member, 'editMessage', { messageId: draftId, body: 'Beste Pieter,' });
  expect(await call(member, 'approveMessage', { messageId: draftId })).toMatchObject({ isError: false, body: { id: draftId, status: 'approved' } });
  await api.call('PATCH', '/settings/mcp', { token: owner.token, body: { organizationId: orgId, allowApprove: false } });

  // The settings: admins only, audited, another tenant 404.
  const memberUser = await addMember(api, owner, orgId, 'member');
  expect((await api.call('PATCH', '/settings/mcp', { token: memberUser.token, body: { organizationId: orgId, allowApprove: true } })).status).toBe(403);
  expect((await api.call('GET', `/settings/mcp?organizationId=${orgId}`, { token: other.owner.token })).status).toBe(404);
  const audit = await owners.query(
    `SELECT before, after FROM compliance_audit_log WHERE organization_id = $1 AND entity = 'mcp_settings' ORDER BY created_at`,
    [orgId],
  );
  expect(audit.rows).toEqual([
    { before: false, after: true },
    { before: true, after: false },
  ]);

  // Every tool call is in the request log with its caller: the /mcp request's line names the tool, the tool's own request its key.
  const lines = log.lines.map((l) => JSON.parse(l) as { msg: string; tool?: string; user_id?: string; api_key_id?: string; status?: number });
  expect(lines).toContainEqual(
    expect.objectContaining({ msg: 'mcp tool call', tool: 'editMessage', status: 200, user_id: expect.any(String), api_key_id: expect.any(String) }),
  );
  expect(lines).toContainEqual(expect.objectContaining({ msg: 'mcp tool call', tool: 'getCompany', status: 404, user_id: other.owner.id }));
});

test('over stdio (npm run mcp) the same tools answer the same, as the holder of the API key', async () => {
  const key = await apiKey('viewer');
  const client = new Client({ name: 'outreach-test-stdio', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(__dirname, '../../apps/mcp/stdio.ts')],
      env: { ...(process.env as Record<string, string>), OUTREACH_API_URL: api.url, OUTREACH_API_KEY: key },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  const http = await httpClient(owner.token);
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual((await http.listTools()).tools.map((t) => t.name));
  expect(await call(client, 'getCompany', { companyId })).toEqual({
    isError: false,
    body: (await api.call('GET', `/companies/${companyId}`, { token: owner.token })).body,
  });
  expect(await call(client, 'editMessage', { messageId: draftId, body: 'x' })).toMatchObject({ isError: true, body: { status: 403 } });
});

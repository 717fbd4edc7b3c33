import { mcpTools } from '../../apps/mcp/tools';
import { sameCallKey } from '../../apps/mcp/server';

/** The MCP tools as data: made from the operations, with person acts and hidden operations marked there. */
const tools = mcpTools();

test('every operation a signed-in caller calls with JSON is a tool, with its path ids required', () => {
  expect(tools.get('getCompany')).toMatchObject({ pathParams: ['companyId'], inputSchema: { required: ['companyId'] }, personAct: null });
  expect(tools.get('listCompanies')!.queryParams).toEqual(expect.arrayContaining(['organizationId', 'limit']));
  for (const hidden of ['createApiKey', 'updateMcpSettings', 'getMetrics', 'postMcp', 'createMailbox', 'updateWebhookEndpoint'])
    expect(tools.has(hidden)).toBe(false);
});

test('a person’s acts read their record first', () => {
  for (const [tool, read] of [
    ['approveMessage', 'getMessage'],
    ['acceptCampaign', 'getCampaign'],
    ['replyToThread', 'getThread'],
    ['patchCampaign', 'getCampaign'],
    ['addCampaignContacts', 'getCampaign'],
  ] as const)
    expect(tools.get(tool)!.personAct?.read.id).toBe(read);
});

test('the same call is one within the hour, whatever the order of its arguments; another call or hour is another key', () => {
  const at = Date.UTC(2026, 11, 6, 10, 1);
  const key = sameCallKey('createCompany', { organizationId: 'o', name: 'A' }, at);
  expect(sameCallKey('createCompany', { name: 'A', organizationId: 'o' }, at + 50 * 60_000)).toBe(key);
  expect(sameCallKey('createCompany', { name: 'B', organizationId: 'o' }, at)).not.toBe(key);
  expect(sameCallKey('createContact', { organizationId: 'o', name: 'A' }, at)).not.toBe(key);
  expect(sameCallKey('createCompany', { organizationId: 'o', name: 'A' }, at + 60 * 60_000)).not.toBe(key);
  expect(key).toMatch(/^mcp-[0-9a-f]{64}$/);
});

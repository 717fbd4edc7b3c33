import { createHmac, randomUUID } from 'node:crypto';
import { startApi, newOrganization } from '../helpers/api';
import { startHubSpotServer } from '../helpers/hubspot-server';
import { exportHistory } from './export-history';

/**
 * Records test/histories/meeting-*.json and booking-*.json through the real worker (part of
 * `npm run record-histories`): a meeting whose reminder waits for its timer and that syncs to a local
 * HubSpot, one cancelled before its reminder (a signal), and a Cal.com booking (which starts the
 * meeting's workflow as an abandoned child).
 */

test('record meeting histories through the real worker', async () => {
  const api = await startApi();
  const hubspot = await startHubSpotServer();
  try {
    const { owner, orgId } = await newOrganization(api);
    const as = async (method: string, p: string, body: unknown) => {
      const res = await api.call(method, p, { token: owner.token, body });
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const company = await as('POST', '/companies', { organizationId: orgId, name: 'Bouwbedrijf Jansen B.V.', countryCode: 'NL' });
    const contact = await as('POST', '/contacts', { organizationId: orgId, companyId: company.id, fullName: 'Jan Jansen', email: 'jan@jansen-bouw.nl' });
    await as('POST', '/integrations', {
      organizationId: orgId,
      providerKey: 'hubspot',
      kind: 'crm',
      config: { baseUrl: hubspot.url, autoSync: true },
      secret: 'hubspot-test-token',
    });
    await as('PATCH', '/settings/meetings', { organizationId: orgId, reminderLeadMinutes: 0 });
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();

    const soon = await as('POST', '/meetings', { organizationId: orgId, title: 'Kennismaking', startsAt: at(2000), endsAt: at(3000), contactId: contact.id });
    const run = api.temporal.workflow.getHandle(`meeting/${soon.id}`);
    await run.result();
    exportHistory(run.workflowId, undefined, 'meeting-reminder.json');

    const later = await as('POST', '/meetings', { organizationId: orgId, title: 'Later', startsAt: at(3600_000), endsAt: at(5400_000), contactId: contact.id });
    await new Promise((r) => setTimeout(r, 1000));
    await as('POST', `/meetings/${later.id}/status`, { status: 'cancelled' });
    const cancelled = api.temporal.workflow.getHandle(`meeting/${later.id}`);
    await cancelled.result();
    exportHistory(cancelled.workflowId, undefined, 'meeting-cancelled.json');

    const calcom = await as('POST', '/integrations', { organizationId: orgId, providerKey: 'calcom', kind: 'calendar', secret: 'cal-secret' });
    const body = JSON.stringify({
      triggerEvent: 'BOOKING_CREATED',
      payload: {
        uid: `cal-${randomUUID()}`,
        title: 'Demo via Cal.com',
        startTime: at(-7200_000),
        endTime: at(-3600_000),
        attendees: [{ email: 'jan@jansen-bouw.nl', name: 'Jan Jansen' }],
        metadata: {},
      },
    });
    const res = await api.call('POST', `/webhooks/calcom/${calcom.id}`, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'X-Cal-Signature-256': createHmac('sha256', 'cal-secret').update(body).digest('hex') },
    });
    if (res.status !== 200) throw new Error(`webhook: ${res.status} ${JSON.stringify(res.body)}`);
    const booking = api.temporal.workflow.getHandle(res.body.workflow_id);
    const outcome = await booking.result();
    exportHistory(booking.workflowId, undefined, 'booking-calcom.json');
    await api.temporal.workflow.getHandle(`meeting/${outcome.meetingId}`).result();
  } finally {
    await hubspot.close();
    await api.close();
  }
});

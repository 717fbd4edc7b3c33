import { requestJson, ProviderRequestError, VerifyOutcome } from '../outcome';

/**
 * HubSpot (CRM) with a private-app access token: `Authorization: Bearer <token>`.
 * The credential check reads the account details (GET /account-info/v3/details), which any valid
 * token may read; errors carry HubSpot's `{status, message, correlationId, category}` body.
 * Meetings are engagements of the CRM v3 objects API (/crm/v3/objects/meetings), associated with the
 * contact (found by e-mail through the contacts search, created when HubSpot does not know it).
 */
export const HUBSPOT_DEFAULT_BASE_URL = 'https://api.hubapi.com';

/** HubSpot-defined association type: meeting to contact. */
export const MEETING_TO_CONTACT_ASSOCIATION = 200;

interface AccountDetails {
  portalId: number;
  accountType?: string;
  timeZone?: string;
  companyCurrency?: string;
  uiDomain?: string;
}

interface CrmObject {
  id: string;
  properties: Record<string, string | null>;
}

export interface HubSpotMeeting {
  title: string;
  startsAt: Date;
  endsAt: Date;
  outcome: 'SCHEDULED' | 'COMPLETED' | 'NO_SHOW' | 'CANCELED';
  joinUrl: string | null;
  /** A stable key of ours (the meeting's id), kept in hs_internal_meeting_notes: a retried create finds it instead of creating a second. */
  key?: string;
}

export class HubSpotClient {
  constructor(
    private readonly token: string,
    private readonly baseUrl = HUBSPOT_DEFAULT_BASE_URL,
  ) {}

  private call<T>(method: string, path: string, body?: unknown) {
    return requestJson<T>(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${this.token}` },
      errorMessage: (b, status) => (b?.message ? `HubSpot ${status} ${b.category ?? ''}: ${b.message}`.replace('  ', ' ') : undefined),
    });
  }

  accountDetails() {
    return this.call<AccountDetails>('GET', '/account-info/v3/details');
  }

  async verify(): Promise<VerifyOutcome> {
    try {
      const a = await this.accountDetails();
      return { ok: true, detail: `HubSpot portal ${a.portalId}${a.accountType ? ` (${a.accountType})` : ''}` };
    } catch (err) {
      if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
      throw err;
    }
  }

  /** The HubSpot contact with this e-mail address; created (with the name split in two) when there is none. */
  async contactIdFor(email: string, fullName: string | null): Promise<string> {
    const found = await this.call<{ total: number; results: CrmObject[] }>('POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: email }] }],
      properties: ['email'],
      limit: 1,
    });
    if (found.results?.[0]) return found.results[0].id;
    const [first, ...rest] = (fullName ?? '').trim().split(/\s+/);
    const created = await this.call<CrmObject>('POST', '/crm/v3/objects/contacts', {
      properties: { email, ...(first ? { firstname: first } : {}), ...(rest.length ? { lastname: rest.join(' ') } : {}) },
    });
    return created.id;
  }

  private static properties(m: HubSpotMeeting): Record<string, string> {
    return {
      hs_timestamp: m.startsAt.toISOString(),
      hs_meeting_title: m.title,
      hs_meeting_start_time: m.startsAt.toISOString(),
      hs_meeting_end_time: m.endsAt.toISOString(),
      hs_meeting_outcome: m.outcome,
      ...(m.joinUrl ? { hs_meeting_external_url: m.joinUrl } : {}),
      ...(m.key ? { hs_internal_meeting_notes: m.key } : {}),
    };
  }

  /** The meeting created earlier under our key (a create whose answer was lost), when there is one. */
  async meetingIdByKey(key: string): Promise<string | null> {
    const found = await this.call<{ total: number; results: CrmObject[] }>('POST', '/crm/v3/objects/meetings/search', {
      filterGroups: [{ filters: [{ propertyName: 'hs_internal_meeting_notes', operator: 'EQ', value: key }] }],
      properties: ['hs_internal_meeting_notes'],
      limit: 1,
    });
    return found.results?.[0]?.id ? String(found.results[0].id) : null;
  }

  /** Creates the meeting, associated with the contact when there is one; answers HubSpot's id. */
  async createMeeting(m: HubSpotMeeting, contactId: string | null): Promise<string> {
    const created = await this.call<CrmObject>('POST', '/crm/v3/objects/meetings', {
      properties: HubSpotClient.properties(m),
      associations: contactId
        ? [{ to: { id: contactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: MEETING_TO_CONTACT_ASSOCIATION }] }]
        : [],
    });
    if (!created?.id) throw new ProviderRequestError('HubSpot answered a meeting without an id', null, true);
    return String(created.id);
  }

  /** Updates the meeting's times, title and outcome. */
  async updateMeeting(id: string, m: HubSpotMeeting): Promise<void> {
    await this.call<CrmObject>('PATCH', `/crm/v3/objects/meetings/${encodeURIComponent(id)}`, { properties: HubSpotClient.properties(m) });
  }
}

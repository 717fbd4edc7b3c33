import { requestJson, ProviderRequestError, VerifyOutcome } from '../outcome';

/**
 * HubSpot (CRM) with a private-app access token: `Authorization: Bearer <token>`.
 * The credential check reads the account details (GET /account-info/v3/details), which any valid
 * token may read; errors carry HubSpot's `{status, message, correlationId, category}` body.
 */
export const HUBSPOT_DEFAULT_BASE_URL = 'https://api.hubapi.com';

interface AccountDetails {
  portalId: number;
  accountType?: string;
  timeZone?: string;
  companyCurrency?: string;
  uiDomain?: string;
}

export class HubSpotClient {
  constructor(
    private readonly token: string,
    private readonly baseUrl = HUBSPOT_DEFAULT_BASE_URL,
  ) {}

  private get<T>(path: string) {
    return requestJson<T>(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
      headers: { authorization: `Bearer ${this.token}` },
      errorMessage: (body, status) => (body?.message ? `HubSpot ${status} ${body.category ?? ''}: ${body.message}`.replace('  ', ' ') : undefined),
    });
  }

  accountDetails() {
    return this.get<AccountDetails>('/account-info/v3/details');
  }

  async verify(): Promise<VerifyOutcome> {
    try {
      const a = await this.accountDetails();
      return { ok: true, detail: `HubSpot portal ${a.portalId}${a.accountType ? ` (${a.accountType})` : ''}` };
    } catch (err) {
      if (err instanceof ProviderRequestError) return { ok: false, message: err.message };
      throw err;
    }
  }
}

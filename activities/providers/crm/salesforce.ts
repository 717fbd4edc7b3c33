import { PassThrough } from 'node:stream';
import { Connection, OAuth2 } from '@jsforce/jsforce-node';
import { Transport } from '@jsforce/jsforce-node/lib/transport';
import type { HttpRequest, HttpResponse } from '@jsforce/jsforce-node/lib/types';
import { StreamPromise } from '@jsforce/jsforce-node/lib/util/promise';
import { BlockedDestinationError, guardedFetch } from '../destination';
import { PROVIDER_RESPONSE_MAX_BYTES, readLimitedText, ResponseTooLargeError } from '../http-fetch';
import { ProviderRequestError, VerifyOutcome } from '../outcome';

/**
 * Salesforce (CRM) through jsforce: the organization's OAuth refresh token (the integration's secret)
 * and the service's connected app (SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_TOKEN_URL).
 * The access token comes from the refresh-token grant; a 401 (expired session) refreshes it once and
 * repeats the request (jsforce's session refresh).
 *
 * jsforce does its own HTTP: both its Connection and its OAuth2 get a transport of ours
 * (BoundedTransport) that sends only to the configured instance URL's and token URL's origins, through
 * the SSRF-guarded fetch, with a time limit, and reads every answer with the bounded reader. The
 * instance_url a token answer names is ignored: requests keep going to the configured instance.
 */
export const SALESFORCE_API_VERSION = '62.0';
export const SALESFORCE_DEFAULT_TOKEN_URL = 'https://login.salesforce.com/services/oauth2/token';

/**
 * Where the organization's refresh token lives, when it is stored: fn runs with the current token
 * while no other refresh of the same integration runs (Salesforce's refresh-token rotation invalidates
 * a token once it is spent, so two grants must never spend the same one), and save stores the token
 * a grant answered in its place.
 */
export interface SalesforceTokenStore {
  withRefreshToken<T>(fn: (refreshToken: string, save: (rotated: string) => Promise<void>) => Promise<T>): Promise<T>;
}

/** The service's connected app. */
export interface SalesforceApp {
  clientId: string;
  clientSecret: string;
  tokenUrl: string;
}

export interface SalesforceEvent {
  subject: string;
  startsAt: Date;
  endsAt: Date;
  location: string | null;
  /** A stable key of ours (the meeting's id), kept in Description: a retried create finds it instead of creating a second. */
  key: string;
  /** Free (cancelled) or Busy. */
  showAs: 'Busy' | 'Free';
}

/** Sends jsforce's requests to the allowed origins only, guarded and bounded; remembers the last status. */
class BoundedTransport extends Transport {
  lastStatus: number | null = null;
  /** The transport's own refusal or failure (jsforce may wrap it in an Error of its own, e.g. during a refresh). */
  lastFailure: ProviderRequestError | null = null;

  constructor(
    private readonly allowedOrigins: ReadonlySet<string>,
    private readonly timeoutMs = 15000,
  ) {
    super();
  }

  override httpRequest(req: HttpRequest): StreamPromise<HttpResponse> {
    return StreamPromise.create(() => ({ stream: new PassThrough(), promise: this.send(req) }));
  }

  private async send(req: HttpRequest): Promise<HttpResponse> {
    try {
      return await this.sendOnce(req);
    } catch (err) {
      if (err instanceof ProviderRequestError) this.lastFailure = err;
      throw err;
    }
  }

  private async sendOnce(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    if (!this.allowedOrigins.has(url.origin))
      throw new ProviderRequestError(`Salesforce: refusing a request to ${url.origin} (only the configured instance and token URLs)`, null, false);
    if (req.body != null && typeof req.body !== 'string') throw new ProviderRequestError('Salesforce: only string request bodies are sent', null, false);
    let res: Response;
    try {
      res = await guardedFetch(url.toString(), {
        method: req.method,
        headers: req.headers,
        body: req.body as string | undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      if (err instanceof BlockedDestinationError) throw new ProviderRequestError(err.message, null, false);
      throw new ProviderRequestError(`Salesforce request failed: ${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}`, null, true);
    }
    let body: string;
    try {
      body = await readLimitedText(res, PROVIDER_RESPONSE_MAX_BYTES);
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw new ProviderRequestError(err.message, res.status, false, true);
      throw new ProviderRequestError(`Salesforce request failed while reading: ${(err as Error).message}`, null, true);
    }
    this.lastStatus = res.status;
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { statusCode: res.status, headers, body };
  }
}

/** A SOQL string literal: backslash and quote escaped (SOQL's own escapes). */
function soqlString(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fields(e: SalesforceEvent) {
  return {
    Subject: e.subject.slice(0, 255),
    StartDateTime: e.startsAt.toISOString(),
    EndDateTime: e.endsAt.toISOString(),
    ShowAs: e.showAs,
    Location: e.location ? e.location.slice(0, 255) : null,
    Description: e.key,
  };
}

export class SalesforceClient {
  private readonly conn: Connection;
  private readonly transport: BoundedTransport;
  private refreshes = 0;

  /** refreshToken: the token itself, or its store (a rotated token is then stored in its place). */
  constructor(instanceUrl: string, refreshToken: string | SalesforceTokenStore, app: SalesforceApp) {
    const instance = new URL(instanceUrl).origin;
    this.transport = new BoundedTransport(new Set([instance, new URL(app.tokenUrl).origin]));
    const oauth2 = new OAuth2({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      tokenServiceUrl: app.tokenUrl,
      redirectUri: 'http://localhost/unused',
    });
    oauth2.tokenServiceUrl = app.tokenUrl; // (jsforce derives it from a login URL otherwise)
    (oauth2 as unknown as { _transport: Transport })._transport = this.transport;
    const grant = (): ReturnType<OAuth2['refreshToken']> =>
      typeof refreshToken === 'string'
        ? oauth2.refreshToken(refreshToken)
        : refreshToken.withRefreshToken(async (current, save) => {
            const res = await oauth2.refreshToken(current);
            if (typeof res.refresh_token === 'string' && res.refresh_token && res.refresh_token !== current) await save(res.refresh_token);
            return res;
          });
    this.conn = new Connection({
      oauth2,
      instanceUrl: instance,
      version: SALESFORCE_API_VERSION,
      // The refresh-token grant; the instance stays the configured one, and a token that is refused right after a refresh is not refreshed forever.
      refreshFn: (conn, callback) => {
        if (++this.refreshes > 2) return callback(new Error('Salesforce refused the session again after refreshing the access token'));
        grant().then(
          (res) => callback(undefined, res.access_token, res),
          (err: Error) => callback(err),
        );
      },
    });
    (this.conn as unknown as { _transport: Transport })._transport = this.transport;
  }

  private refreshDelegate(): { refresh(since: number): Promise<void> } {
    return (this.conn as unknown as { _refreshDelegate: { refresh(since: number): Promise<void> } })._refreshDelegate;
  }

  /** Runs a jsforce call; its failures become ProviderRequestErrors with the HTTP status they came with. */
  private async call<T>(fn: (conn: Connection) => PromiseLike<T>): Promise<T> {
    this.transport.lastStatus = null;
    this.transport.lastFailure = null;
    try {
      // The first call takes an access token with the refresh-token grant (rather than a request bound to be refused).
      if (!this.conn.accessToken) await this.refreshDelegate().refresh(Date.now());
      return await fn(this.conn);
    } catch (err) {
      if (err instanceof ProviderRequestError) throw err;
      if (this.transport.lastFailure) throw this.transport.lastFailure;
      const e = err as Error & { errorCode?: string };
      const status = this.transport.lastStatus;
      const message = `Salesforce ${status ?? ''} ${e.errorCode ?? e.name ?? ''}: ${e.message}`.replace(/\s+/g, ' ').slice(0, 500);
      // A refused refresh token (invalid_grant) is a 400 from the token endpoint: no retry heals it.
      throw new ProviderRequestError(message, status, status === null ? false : status === 429 || status >= 500);
    }
  }

  /** The access token from the refresh-token grant, then the identity it belongs to. */
  async verify(): Promise<VerifyOutcome> {
    try {
      const limits = await this.call((c) => c.request<{ DailyApiRequests?: { Remaining: number } }>(`/services/data/v${SALESFORCE_API_VERSION}/limits`));
      const remaining = limits?.DailyApiRequests?.Remaining;
      return { ok: true, detail: `Salesforce ${this.conn.instanceUrl}${remaining !== undefined ? ` (${remaining} API requests left today)` : ''}` };
    } catch (err) {
      if (err instanceof ProviderRequestError && !err.tooLarge) return { ok: false, message: err.message };
      throw err;
    }
  }

  /** The Contact with this e-mail address, else an unconverted Lead, else a Lead created for it. */
  async whoIdFor(email: string, fullName: string | null, company: string | null): Promise<{ type: 'Contact' | 'Lead'; id: string; created: boolean }> {
    const contact = await this.call((c) => c.query<{ Id: string }>(`SELECT Id FROM Contact WHERE Email = ${soqlString(email)} LIMIT 1`));
    if (contact.records[0]) return { type: 'Contact', id: contact.records[0].Id, created: false };
    const lead = await this.call((c) => c.query<{ Id: string }>(`SELECT Id FROM Lead WHERE Email = ${soqlString(email)} AND IsConverted = false LIMIT 1`));
    if (lead.records[0]) return { type: 'Lead', id: lead.records[0].Id, created: false };
    const [first, ...rest] = (fullName ?? '').trim().split(/\s+/).filter(Boolean);
    const made = await this.call((c) =>
      c.sobject('Lead').create({
        Email: email,
        FirstName: rest.length ? first : undefined,
        LastName: (rest.length ? rest.join(' ') : first) || email.split('@')[0],
        Company: company || '[not provided]',
      }),
    );
    if (!made.success || !made.id) throw new ProviderRequestError('Salesforce answered a Lead without an id', null, true);
    return { type: 'Lead', id: made.id, created: true };
  }

  /** The Event created earlier under our key for this person (a create whose answer was lost), when there is one. */
  async eventIdByKey(whoId: string, key: string): Promise<string | null> {
    // Description is not filterable in SOQL: the person's Events are read (bounded) and matched here.
    const found = await this.call((c) =>
      c.query<{ Id: string; Description: string | null }>(
        `SELECT Id, Description FROM Event WHERE WhoId = ${soqlString(whoId)} ORDER BY CreatedDate DESC LIMIT 200`,
      ),
    );
    return found.records.find((r) => r.Description === key)?.Id ?? null;
  }

  async createEvent(e: SalesforceEvent, whoId: string): Promise<string> {
    const made = await this.call((c) => c.sobject('Event').create({ ...fields(e), WhoId: whoId }));
    if (!made.success || !made.id) throw new ProviderRequestError('Salesforce answered an Event without an id', null, true);
    return made.id;
  }

  async updateEvent(id: string, e: SalesforceEvent): Promise<void> {
    await this.call((c) => c.sobject('Event').update({ Id: id, ...fields(e) }));
  }

  /** Sets the Opportunity's StageName (a PATCH of /sobjects/Opportunity/<id>): the same stage again changes nothing. */
  async updateOpportunityStage(id: string, stageName: string): Promise<void> {
    await this.call((c) => c.sobject('Opportunity').update({ Id: id, StageName: stageName }));
  }
}

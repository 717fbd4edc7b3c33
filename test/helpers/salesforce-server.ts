import { randomBytes } from 'node:crypto';
import http from 'node:http';

export const SALESFORCE_TEST_APP = { clientId: 'outreach-connected-app', clientSecret: 'outreach-connected-app-secret' };
export const SALESFORCE_TEST_REFRESH_TOKEN = '5Aep861salesforce-test-refresh-token';

export interface SalesforceRequest {
  method: string;
  path: string;
  query: string | null;
  authorization: string | undefined;
  body: any;
  status?: number;
}

export interface SalesforceServer {
  url: string;
  tokenUrl: string;
  requests: SalesforceRequest[];
  /** Records by sObject type and id. */
  records: {
    Contact: Map<string, Record<string, unknown>>;
    Lead: Map<string, Record<string, unknown>>;
    Event: Map<string, Record<string, unknown>>;
    Opportunity: Map<string, Record<string, unknown>>;
  };
  /** Every access token issued so far stops working (the session expired). */
  expireSessions(): void;
  /** The sessions expire after the next n authorized data requests (mid-way through a sync). */
  expireSessionsAfter(n: number): void;
  /** The next n Event creates are made, but answered 503 (the answer is lost). */
  loseEventCreateAnswers(n: number): void;
  /**
   * A new refresh token under refresh-token rotation: each grant with it answers a new refresh_token
   * and refuses the spent one from then on (invalid_grant), as Salesforce does with rotation on.
   */
  rotatingRefreshToken(): string;
  /** Token answers are sent this many ms late (a slow grant, so that concurrent grants overlap). */
  delayTokenAnswers(ms: number): void;
  /** Refresh tokens a rotation has spent (refused from then on), oldest first. */
  spentRefreshTokens: string[];
  /** The next n requests to the data API are answered 503 (an outage). */
  failNext(n: number): void;
  close(): Promise<void>;
}

const API = /^\/services\/data\/v\d+\.\d+/;

/**
 * A local stand-in for Salesforce with its REST shapes: the OAuth token endpoint (refresh-token grant,
 * client id and secret checked; errors as {error, error_description}), and the data API under
 * /services/data/vXX.X that checks the bearer token (401 [{message, errorCode: INVALID_SESSION_ID}]):
 * /query?q= for the SOQL the service sends (Contact or Lead by Email, Event by WhoId), /sobjects/<type>
 * POST ({id, success, errors}, 201) and /sobjects/<type>/<id> PATCH (204), /limits. Errors are arrays of
 * {message, errorCode, fields}. An Event whose Subject contains "[reject]" is refused with 400
 * FIELD_CUSTOM_VALIDATION_EXCEPTION every time, an Opportunity StageName containing it with 400
 * INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST; a PATCH of a record it does not hold is a 404.
 */
export async function startSalesforceServer(): Promise<SalesforceServer> {
  const requests: SalesforceRequest[] = [];
  const tokens = new Set<string>();
  const rotating = new Set<string>();
  const spentRefreshTokens: string[] = [];
  let tokenDelayMs = 0;
  const records: SalesforceServer['records'] = { Contact: new Map(), Lead: new Map(), Event: new Map(), Opportunity: new Map() };
  const prefixes: Record<string, string> = { Contact: '003', Lead: '00Q', Event: '00U', Opportunity: '006' };
  let next = 1;
  let lostEventAnswers = 0;
  let failures = 0;
  let expireAfter: number | null = null;
  // eslint-disable-next-line no-useless-assignment -- read by the handler below; set once the server listens
  let url = '';
  const newId = (type: string) => `${prefixes[type]}5g00000${String(next++).padStart(8, '0')}`.slice(0, 18);

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://x');
      const seen: SalesforceRequest = {
        method: req.method!,
        path: u.pathname,
        query: u.searchParams.get('q'),
        authorization: req.headers.authorization,
        body: undefined,
      };
      requests.push(seen);
      const send = (status: number, b?: unknown) => {
        seen.status = status;
        if (b === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' }).end(JSON.stringify(b));
      };
      const errors = (status: number, errorCode: string, message: string, fields: string[] = []) => send(status, [{ message, errorCode, fields }]);

      if (u.pathname === '/services/oauth2/token' && req.method === 'POST') {
        // The token is checked and rotated at once, the answer sent later: a second grant meanwhile sees the spent token.
        const answer = (status: number, b?: unknown) => void (tokenDelayMs ? setTimeout(() => send(status, b), tokenDelayMs) : send(status, b));
        const form = new URLSearchParams(raw);
        seen.body = Object.fromEntries(form);
        if (form.get('grant_type') !== 'refresh_token') return answer(400, { error: 'unsupported_grant_type', error_description: 'grant type not supported' });
        if (form.get('client_id') !== SALESFORCE_TEST_APP.clientId || form.get('client_secret') !== SALESFORCE_TEST_APP.clientSecret) {
          return answer(400, { error: 'invalid_client', error_description: 'invalid client credentials' });
        }
        const refreshToken = form.get('refresh_token') ?? '';
        if (refreshToken !== SALESFORCE_TEST_REFRESH_TOKEN && !rotating.has(refreshToken))
          return answer(400, { error: 'invalid_grant', error_description: 'expired access/refresh token' });
        let rotated: string | undefined;
        if (rotating.delete(refreshToken)) {
          spentRefreshTokens.push(refreshToken);
          rotated = `5Aep861rotated-${randomBytes(12).toString('hex')}`;
          rotating.add(rotated);
        }
        const token = `00D5g000004Xyz!${randomBytes(16).toString('hex')}`;
        tokens.add(token);
        return answer(200, {
          ...(rotated ? { refresh_token: rotated } : {}),
          access_token: token,
          signature: randomBytes(32).toString('base64'),
          scope: 'refresh_token api',
          // Salesforce names the org's instance; the service keeps talking to the configured one.
          instance_url: 'https://elsewhere.invalid',
          id: `https://login.salesforce.com/id/00D5g000004XyzAAA/0055g00000AbCdEAAA`,
          token_type: 'Bearer',
          issued_at: String(Date.now()),
        });
      }
      if (!API.test(u.pathname)) return errors(404, 'NOT_FOUND', 'The requested resource does not exist');
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !tokens.has(bearer)) return errors(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
      if (expireAfter !== null && --expireAfter < 0) {
        expireAfter = null;
        tokens.clear();
        return errors(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
      }
      if (failures > 0) {
        failures--;
        return errors(503, 'SERVER_UNAVAILABLE', 'Service unavailable');
      }
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return errors(400, 'JSON_PARSER_ERROR', 'The request body is not JSON');
      }
      seen.body = body;
      const path = u.pathname.replace(API, '');

      if (path === '/limits' && req.method === 'GET') return send(200, { DailyApiRequests: { Max: 15000, Remaining: 14998 } });

      if (path === '/query' && req.method === 'GET') {
        const q = u.searchParams.get('q') ?? '';
        const byEmail = /^SELECT Id FROM (Contact|Lead) WHERE Email = '((?:[^'\\]|\\.)*)'( AND IsConverted = false)? LIMIT 1$/.exec(q);
        const byWho = /^SELECT Id, Description FROM Event WHERE WhoId = '([A-Za-z0-9]{15,18})' ORDER BY CreatedDate DESC LIMIT (\d+)$/.exec(q);
        let hits: [string, Record<string, unknown>][];
        let type: string;
        if (byEmail) {
          type = byEmail[1]!;
          const email = byEmail[2]!.replace(/\\(.)/g, '$1');
          hits = [...records[type as 'Contact' | 'Lead']].filter(([, r]) => String(r.Email).toLowerCase() === email.toLowerCase()).slice(0, 1);
        } else if (byWho) {
          type = 'Event';
          hits = [...records.Event]
            .filter(([, r]) => r.WhoId === byWho[1])
            .reverse()
            .slice(0, Number(byWho[2]));
        } else return errors(400, 'MALFORMED_QUERY', `unexpected query: ${q}`);
        return send(200, {
          totalSize: hits.length,
          done: true,
          records: hits.map(([id, r]) => ({
            attributes: { type, url: `/services/data/v62.0/sobjects/${type}/${id}` },
            Id: id,
            ...(type === 'Event' ? { Description: r.Description ?? null } : {}),
          })),
        });
      }

      const create = /^\/sobjects\/(Contact|Lead|Event|Opportunity)$/.exec(path);
      if (create && req.method === 'POST') {
        const type = create[1] as keyof SalesforceServer['records'];
        if (type === 'Lead' && (!body?.LastName || !body?.Company))
          return errors(400, 'REQUIRED_FIELD_MISSING', 'Required fields are missing: [LastName, Company]', ['LastName', 'Company']);
        if (type === 'Event') {
          if (String(body?.Subject ?? '').includes('[reject]'))
            return errors(400, 'FIELD_CUSTOM_VALIDATION_EXCEPTION', 'Subject may not contain [reject]', ['Subject']);
          if (!body?.StartDateTime || !body?.EndDateTime)
            return errors(400, 'REQUIRED_FIELD_MISSING', 'Required fields are missing: [StartDateTime, EndDateTime]');
          const who = String(body.WhoId ?? '');
          if (who && !records.Contact.has(who) && !records.Lead.has(who))
            return errors(400, 'FIELD_INTEGRITY_EXCEPTION', 'Name ID: id value of incorrect type', ['WhoId']);
        }
        const id = newId(type);
        records[type].set(id, { ...body });
        if (type === 'Event' && lostEventAnswers > 0) {
          lostEventAnswers--;
          return errors(503, 'SERVER_UNAVAILABLE', 'Service unavailable (the Event was created)');
        }
        return send(201, { id, success: true, errors: [] });
      }
      const update = /^\/sobjects\/(Contact|Lead|Event|Opportunity)\/([A-Za-z0-9]{15,18})$/.exec(path);
      if (update && req.method === 'PATCH') {
        const type = update[1] as keyof SalesforceServer['records'];
        const existing = records[type].get(update[2]!);
        if (!existing) return errors(404, 'NOT_FOUND', 'The requested resource does not exist');
        if (type === 'Event' && String(body?.Subject ?? '').includes('[reject]'))
          return errors(400, 'FIELD_CUSTOM_VALIDATION_EXCEPTION', 'Subject may not contain [reject]', ['Subject']);
        if (type === 'Opportunity' && String(body?.StageName ?? '').includes('[reject]'))
          return errors(400, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', 'Stage: bad value for restricted picklist field', ['StageName']);
        records[type].set(update[2]!, { ...existing, ...body });
        return send(204);
      }
      return errors(404, 'NOT_FOUND', 'The requested resource does not exist');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    tokenUrl: `${url}/services/oauth2/token`,
    requests,
    records,
    expireSessions: () => tokens.clear(),
    expireSessionsAfter: (n) => void (expireAfter = n),
    loseEventCreateAnswers: (n) => void (lostEventAnswers = n),
    failNext: (n) => void (failures = n),
    rotatingRefreshToken: () => {
      const t = `5Aep861rotating-${randomBytes(12).toString('hex')}`;
      rotating.add(t);
      return t;
    },
    spentRefreshTokens,
    delayTokenAnswers: (ms) => void (tokenDelayMs = ms),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

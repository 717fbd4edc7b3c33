import http from 'node:http';

export interface HubSpotRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
  /** What the stand-in answered. */
  answer?: any;
}

export interface HubSpotServer {
  url: string;
  requests: HubSpotRequest[];
  /** Answers the next n meeting creations with this status (an outage: 503; a refusal: 400). */
  failMeetingCreates(n: number, status: number): void;
  /** The next n meeting creates are made, but answered 504 (the answer is lost). */
  loseMeetingCreateAnswers(n: number): void;
  /** The meetings created, by id, with their properties. */
  meetings: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A local stand-in for HubSpot's CRM v3 objects API, with its shapes: contacts search and create,
 * meetings create (with associations) and update; errors as HubSpot answers them
 * ({status, message, correlationId, category}). A meeting whose title contains "[reject]" is refused
 * with 400 VALIDATION_ERROR every time.
 */
export async function startHubSpotServer(): Promise<HubSpotServer> {
  const requests: HubSpotRequest[] = [];
  const contacts = new Map<string, string>();
  let nextId = 9000;
  let failures: { n: number; status: number } = { n: 0, status: 503 };
  let lostAnswers = 0;
  const meetings = new Map<string, Record<string, unknown>>();
  const error = (res: http.ServerResponse, status: number, category: string, message: string) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'error', message, correlationId: 'c0ffee00-0000-4000-8000-000000000000', category }));
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      const path = new URL(req.url!, 'http://x').pathname;
      const seen: HubSpotRequest = { method: req.method!, path, authorization: req.headers.authorization, body };
      requests.push(seen);
      const json = (status: number, b: unknown) => {
        seen.answer = b;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(b));
      };
      if (req.headers.authorization !== 'Bearer hubspot-test-token') return error(res, 401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found.');
      if (req.method === 'POST' && path === '/crm/v3/objects/contacts/search') {
        const email = body?.filterGroups?.[0]?.filters?.[0]?.value as string;
        const id = contacts.get(email);
        return json(200, { total: id ? 1 : 0, results: id ? [{ id, properties: { email } }] : [] });
      }
      if (req.method === 'POST' && path === '/crm/v3/objects/contacts') {
        const id = String(nextId++);
        contacts.set(body.properties.email, id);
        return json(201, { id, properties: body.properties, createdAt: new Date().toISOString(), archived: false });
      }
      if (req.method === 'POST' && path === '/crm/v3/objects/meetings') {
        if (String(body?.properties?.hs_meeting_title ?? '').includes('[reject]')) return error(res, 400, 'VALIDATION_ERROR', 'Property values were not valid');
        if (failures.n > 0) {
          failures = { ...failures, n: failures.n - 1 };
          return error(res, failures.status, 'INTERNAL_ERROR', 'Service unavailable');
        }
        const id = String(nextId++);
        meetings.set(id, body.properties);
        if (lostAnswers > 0) {
          lostAnswers--;
          return error(res, 504, 'INTERNAL_ERROR', 'Gateway timeout (the meeting was created)');
        }
        return json(201, { id, properties: body.properties, createdAt: new Date().toISOString(), archived: false });
      }
      if (req.method === 'POST' && path === '/crm/v3/objects/meetings/search') {
        const f = body?.filterGroups?.[0]?.filters?.[0] as { propertyName: string; operator: string; value: string };
        const hits = [...meetings].filter(([, p]) => f?.operator === 'EQ' && p[f.propertyName] === f.value).map(([id, properties]) => ({ id, properties }));
        return json(200, { total: hits.length, results: hits.slice(0, body?.limit ?? 10) });
      }
      const m = /^\/crm\/v3\/objects\/meetings\/(\d+)$/.exec(path);
      if (req.method === 'PATCH' && m) return json(200, { id: m[1], properties: body.properties, archived: false });
      return error(res, 404, 'OBJECT_NOT_FOUND', 'resource not found');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failMeetingCreates: (n, status) => void (failures = { n, status }),
    loseMeetingCreateAnswers: (n) => void (lostAnswers = n),
    meetings,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

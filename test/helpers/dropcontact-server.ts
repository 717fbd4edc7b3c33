import http from 'node:http';

/**
 * A stand-in for Dropcontact's API on 127.0.0.1: `POST /v1/enrich/all` (X-Access-Token) answers
 * `{error, success, request_id, credits_left}`; `GET /v1/enrich/all/{request_id}` answers 200
 * `{success: false, reason: "Request not ready yet, try again in 30 seconds"}` for the first
 * `notReadyPolls` polls of a request (and always for an unknown id, as Dropcontact does), then
 * `{success: true, data, credits_left}` with the records in the order sent; `GET /v1/account/credits`
 * answers `{credits}`. A wrong token is 401 `{error, reason, success}`; too few credits for the whole
 * request is 403. The directory holds people by (normalised full name, company name or website
 * domain), each with the addresses (and qualifications) Dropcontact would answer; a credit is taken
 * per record at submit and given back, once the result is made, for a record answered without an
 * address whose qualification is not invalid (so a request sent twice costs twice).
 */
export interface DropcontactDirectoryEntry {
  fullName: string;
  /** The company's name or its website domain; either matches. */
  company: string;
  emails: Array<{ email: string; qualification: string }>;
  job?: string;
  linkedin?: string;
  phone?: string;
}

export interface DropcontactStandIn {
  url: string;
  /** POST /v1/enrich/all calls with the right token. */
  submits: number;
  /** GET /v1/enrich/all/{id} calls with the right token. */
  polls: number;
  /** Requests of any kind, wrong tokens included. */
  requests: number;
  credits: number;
  /** Polls answered "not ready" before a request's result is given. */
  notReadyPolls: number;
  /** When set, every request is answered with this HTTP status (429: the rate limit). */
  failWith: number | null;
  /** The records each submit sent, in order. */
  submitted: Array<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

const norm = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();

export async function startDropcontactServer(opts: {
  token: string;
  directory: DropcontactDirectoryEntry[];
  credits?: number;
  notReadyPolls?: number;
}): Promise<DropcontactStandIn> {
  const standIn = {
    submits: 0,
    polls: 0,
    requests: 0,
    credits: opts.credits ?? 1000,
    notReadyPolls: opts.notReadyPolls ?? 0,
    failWith: null as number | null,
    submitted: [] as Array<Array<Record<string, unknown>>>,
  };
  const pending = new Map<string, { records: Array<Record<string, unknown>>; polls: number; result?: unknown[] }>();
  let nextId = 1;

  const lookUp = (r: Record<string, unknown>) => {
    const name = norm(String(r.full_name ?? [r.first_name, r.last_name].filter(Boolean).join(' ')));
    const companies = [r.company, r.website].filter((v): v is string => typeof v === 'string').map(norm);
    return opts.directory.find((d) => norm(d.fullName) === name && companies.includes(norm(d.company)));
  };

  const server = http.createServer((req, res) => {
    standIn.requests += 1;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (standIn.failWith !== null) return json(standIn.failWith, { error: true, reason: 'Too Many Requests', success: false });
    if (req.headers['x-access-token'] !== opts.token) return json(401, { error: true, reason: 'Invalid or missing access token', success: false });
    const u = new URL(req.url ?? '/', 'http://stand-in');
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      if (req.method === 'GET' && u.pathname === '/v1/account/credits') return json(200, { credits: standIn.credits });
      if (req.method === 'POST' && u.pathname === '/v1/enrich/all') {
        let body: { data?: unknown };
        try {
          body = JSON.parse(raw);
        } catch {
          return json(422, { detail: 'Invalid JSON' });
        }
        const data = Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : [];
        if (data.length === 0) return json(400, { error: true, reason: 'Missing data in JSON', success: false });
        if (data.length > 250) return json(400, { error: true, reason: 'Too many records, you can only submit up to 250 records', success: false });
        if (data.length > standIn.credits) return json(403, { error: true, reason: 'Not enough credits for this request', success: false });
        standIn.submits += 1;
        standIn.submitted.push(data);
        // As Dropcontact bills: a credit per record taken at submit, given back for a record it finds no address for.
        standIn.credits -= data.length;
        const id = `req${String(nextId++).padStart(6, '0')}`;
        pending.set(id, { records: data, polls: 0 });
        return json(200, { error: false, success: true, request_id: id, credits_left: standIn.credits });
      }
      const m = /^\/v1\/enrich\/all\/([^/]+)$/.exec(u.pathname);
      if (req.method === 'GET' && m) {
        standIn.polls += 1;
        const p = pending.get(decodeURIComponent(m[1]!));
        const notReady = { error: false, reason: 'Request not ready yet, try again in 30 seconds', success: false };
        if (!p) return json(200, notReady);
        p.polls += 1;
        if (p.polls <= standIn.notReadyPolls) return json(200, notReady);
        if (!p.result) {
          p.result = p.records.map((r) => {
            const found = lookUp(r);
            if (!found?.emails.some((e) => !e.qualification.startsWith('invalid'))) standIn.credits += 1;
            return {
              first_name: r.first_name ?? null,
              last_name: r.last_name ?? null,
              full_name: r.full_name ?? null,
              company: r.company ?? null,
              website: r.website ?? null,
              ...(found ? { email: found.emails, job: found.job ?? null, linkedin: found.linkedin ?? null, phone: found.phone ?? null } : {}),
            };
          });
        }
        return json(200, { data: p.result, error: false, success: true, credits_left: standIn.credits });
      }
      json(404, { detail: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

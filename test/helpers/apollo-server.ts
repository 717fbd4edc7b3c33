import http from 'node:http';

/**
 * A stand-in for Apollo's API on 127.0.0.1: `POST /api/v1/people/match` (x-api-key; the details as
 * query parameters, or a JSON body) answers `{person: {...} | null}` from a seeded directory of
 * people by (normalised full name, organization name or domain); `GET /api/v1/auth/health` answers
 * `{healthy: true, is_logged_in}`. A wrong key is 401 `{error}` on people/match and
 * `is_logged_in: false` on auth/health. Personal e-mails are in the answer only when
 * reveal_personal_emails=true; one credit is charged per match that reveals an address.
 */
export interface ApolloDirectoryEntry {
  id: string;
  firstName: string;
  lastName: string;
  organizationName: string;
  domain: string;
  title?: string;
  email?: string | null;
  emailStatus?: string | null;
  linkedinUrl?: string;
  personalEmails?: string[];
}

export interface ApolloStandIn {
  url: string;
  /** people/match calls with the right key. */
  matches: number;
  /** Requests of any kind, wrong keys included. */
  requests: number;
  /** Credits charged (one per match that revealed an address). */
  credits: number;
  /** When set, every request is answered with this HTTP status (429: the rate limit). */
  failWith: number | null;
  /** The parameters of every people/match call, in order. */
  asked: Array<Record<string, string>>;
  /** How long a people/match answer takes (ms), so that overlapping calls show in maxInFlight. */
  delayMs: number;
  /** The most people/match calls ever open at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

const norm = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

export async function startApolloServer(opts: { apiKey: string; directory: ApolloDirectoryEntry[] }): Promise<ApolloStandIn> {
  const standIn = {
    matches: 0,
    requests: 0,
    credits: 0,
    failWith: null as number | null,
    asked: [] as Array<Record<string, string>>,
    delayMs: 0,
    maxInFlight: 0,
  };
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    standIn.requests += 1;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      if (standIn.failWith !== null)
        return json(standIn.failWith, { message: 'The maximum number of api calls allowed for api/v1/people/match is 600 times per hour.' });
      const u = new URL(req.url ?? '/', 'http://stand-in');
      const keyOk = req.headers['x-api-key'] === opts.apiKey;
      if (req.method === 'GET' && u.pathname === '/api/v1/auth/health') return json(200, { healthy: true, is_logged_in: keyOk });
      if (req.method === 'POST' && u.pathname === '/api/v1/people/match') {
        if (!keyOk) return json(401, { error: 'Invalid access credentials.', error_code: 'INVALID_API_KEY' });
        const params: Record<string, string> = Object.fromEntries(u.searchParams.entries());
        if (raw) {
          try {
            for (const [k, v] of Object.entries(JSON.parse(raw) as Record<string, unknown>)) params[k] = String(v);
          } catch {
            return json(422, { error: 'Invalid JSON body' });
          }
        }
        standIn.matches += 1;
        standIn.asked.push(params);
        inFlight += 1;
        standIn.maxInFlight = Math.max(standIn.maxInFlight, inFlight);
        const answer = (status: number, body: unknown) =>
          setTimeout(() => {
            inFlight -= 1;
            json(status, body);
          }, standIn.delayMs);
        const name = norm(params.name ?? [params.first_name, params.last_name].filter(Boolean).join(' '));
        const orgs = [params.organization_name, params.domain].filter((v): v is string => !!v).map(norm);
        const d = opts.directory.find(
          (e) => norm(`${e.firstName} ${e.lastName}`) === name && (orgs.includes(norm(e.organizationName)) || orgs.includes(norm(e.domain))),
        );
        if (!d) return answer(200, { person: null });
        const revealsPersonal = params.reveal_personal_emails === 'true';
        if (d.email) standIn.credits += 1;
        return answer(200, {
          person: {
            id: d.id,
            first_name: d.firstName,
            last_name: d.lastName,
            name: `${d.firstName} ${d.lastName}`,
            title: d.title ?? null,
            email: d.email ?? null,
            email_status: d.emailStatus ?? null,
            linkedin_url: d.linkedinUrl ?? null,
            personal_emails: revealsPersonal ? (d.personalEmails ?? []) : [],
            organization: { name: d.organizationName, primary_domain: d.domain },
          },
        });
      }
      json(404, { error: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

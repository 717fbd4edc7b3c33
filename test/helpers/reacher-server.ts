import http from 'node:http';

/**
 * A stand-in for a self-hosted Reacher backend: POST /v0/check_email with `{to_email}` answers the
 * JSON Reacher's check-if-email-exists gives, decided by the recipient's domain as a real SMTP
 * conversation would: `refusing-server.nl` knows only `known@`, `accepts-all.nl` takes everything,
 * `greylisting.nl` answers 4xx (SMTP error object; with `greylistMs`, only until that long after an
 * address was first asked, then it is deliverable), anything else has no mail host. The shared
 * secret is required in `x-reacher-secret` when one is set (401 otherwise, as the backend answers).
 */
export interface ReacherStandIn {
  url: string;
  /** Every address asked about, in order. */
  asked: string[];
  close(): Promise<void>;
}

const syntaxOf = (email: string) => {
  const at = email.lastIndexOf('@');
  const ok = at > 0 && at < email.length - 1 && !/\s/.test(email);
  return { address: ok ? email : null, domain: ok ? email.slice(at + 1) : '', is_valid_syntax: ok, username: ok ? email.slice(0, at) : '' };
};

const misc = (email: string) => ({
  is_disposable: email.endsWith('@mailinator.com'),
  is_role_account: /^(info|sales|support|admin)@/.test(email),
  gravatar_url: null,
  haveibeenpwned: null,
});

export function reacherAnswer(email: string, greylisted = true): unknown {
  const syntax = syntaxOf(email);
  if (!syntax.is_valid_syntax)
    return { input: email, is_reachable: 'invalid', misc: misc(email), mx: { accepts_mail: false, records: [] }, smtp: smtpOf(false, false, false), syntax };
  const domain = syntax.domain;
  const mx = { accepts_mail: true, records: [`mx.${domain}.`] };
  if (domain === 'refusing-server.nl') {
    const known = syntax.username === 'known';
    const m = misc(email);
    return {
      input: email,
      is_reachable: !known ? 'invalid' : m.is_role_account ? 'risky' : 'safe',
      misc: m,
      mx,
      smtp: smtpOf(true, known, false),
      syntax,
    };
  }
  if (domain === 'accepts-all.nl') return { input: email, is_reachable: 'risky', misc: misc(email), mx, smtp: smtpOf(true, true, true), syntax };
  if (domain === 'greylisting.nl' && !greylisted) return { input: email, is_reachable: 'safe', misc: misc(email), mx, smtp: smtpOf(true, true, false), syntax };
  if (domain === 'greylisting.nl')
    return {
      input: email,
      is_reachable: 'unknown',
      misc: misc(email),
      mx,
      smtp: { type: 'SmtpError', message: '451 4.7.1 Greylisted, please try again later' },
      syntax,
    };
  return { input: email, is_reachable: 'invalid', misc: misc(email), mx: { accepts_mail: false, records: [] }, smtp: smtpOf(false, false, false), syntax };
}

function smtpOf(connect: boolean, deliverable: boolean, catchAll: boolean) {
  return { can_connect_smtp: connect, has_full_inbox: false, is_catch_all: catchAll, is_deliverable: deliverable, is_disabled: false };
}

export async function startReacherServer(opts: { secret?: string; greylistMs?: number } = {}): Promise<ReacherStandIn> {
  const asked: string[] = [];
  const firstAsked = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v0/check_email') return json(404, { error: 'not found' });
      if (opts.secret && req.headers['x-reacher-secret'] !== opts.secret) return json(401, { error: 'Invalid or missing x-reacher-secret header' });
      let body: { to_email?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(400, { error: 'invalid JSON' });
      }
      if (typeof body.to_email !== 'string') return json(400, { error: 'to_email is required' });
      asked.push(body.to_email);
      if (!firstAsked.has(body.to_email)) firstAsked.set(body.to_email, Date.now());
      const greylisted = opts.greylistMs === undefined || Date.now() - firstAsked.get(body.to_email)! < opts.greylistMs;
      json(200, reacherAnswer(body.to_email, greylisted));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, asked, close: () => new Promise((r) => server.close(() => r())) };
}

import http from 'node:http';

/**
 * A stand-in for ZeroBounce's API v2: `GET /v2/validate?api_key=&email=&ip_address=` and
 * `GET /v2/getcredits?api_key=`, answering the JSON ZeroBounce gives. The address decides, as a real
 * SMTP conversation would for the test domains the Reacher stand-in uses: `refusing-server.nl` knows
 * only `known@`, `accepts-all.nl` takes everything (role addresses there are role_based_catch_all),
 * `greylisting.nl` greylists, `mailinator.com` is disposable, anything else has no DNS entries. At
 * `example.com` the local part picks the answer as ZeroBounce's sandbox addresses do
 * (`spamtrap@example.com`, `role_based@example.com`, `mailbox_not_found@example.com`…). A key other
 * than the stand-in's own is answered as ZeroBounce answers it: 200 with `{error}` from validate, and
 * `{"Credits":"-1"}` from getcredits.
 */
export interface ZeroBounceStandIn {
  url: string;
  /** Every address asked about, in order. */
  asked: string[];
  /** Requests of any kind, wrong keys included. */
  requests: number;
  /** What getcredits answers to the right key. */
  credits: number;
  /** When set, every request is answered with this HTTP status (429: a rate limit's block). */
  failWith: number | null;
  close(): Promise<void>;
}

const SANDBOX: Record<string, [string, string]> = {
  valid: ['valid', ''],
  invalid: ['invalid', 'mailbox_not_found'],
  disposable: ['do_not_mail', 'disposable'],
  toxic: ['do_not_mail', 'toxic'],
  donotmail: ['do_not_mail', 'role_based'],
  spamtrap: ['spamtrap', ''],
  abuse: ['abuse', ''],
  catch_all: ['catch-all', ''],
  antispam_system: ['unknown', 'antispam_system'],
  does_not_accept_mail: ['invalid', 'does_not_accept_mail'],
  exception_occurred: ['unknown', 'exception_occurred'],
  failed_smtp_connection: ['unknown', 'failed_smtp_connection'],
  failed_syntax_check: ['invalid', 'failed_syntax_check'],
  forcible_disconnect: ['unknown', 'forcible_disconnect'],
  global_suppression: ['do_not_mail', 'global_suppression'],
  greylisted: ['unknown', 'greylisted'],
  leading_period_removed: ['valid', 'leading_period_removed'],
  mail_server_did_not_respond: ['unknown', 'mail_server_did_not_respond'],
  mail_server_temporary_error: ['unknown', 'mail_server_temporary_error'],
  unknown: ['unknown', 'mail_server_temporary_error'],
  mailbox_quota_exceeded: ['invalid', 'mailbox_quota_exceeded'],
  mailbox_not_found: ['invalid', 'mailbox_not_found'],
  no_dns_entries: ['invalid', 'no_dns_entries'],
  possible_trap: ['do_not_mail', 'possible_trap'],
  possible_typo: ['invalid', 'possible_typo'],
  role_based: ['do_not_mail', 'role_based'],
  timeout_exceeded: ['unknown', 'timeout_exceeded'],
  unroutable_ip_address: ['invalid', 'unroutable_ip_address'],
  free_email: ['valid', ''],
  role_based_catch_all: ['do_not_mail', 'role_based_catch_all'],
  mx_forward: ['do_not_mail', 'mx_forward'],
  accept_all: ['valid', 'accept_all'],
};

const ROLE = /^(info|sales|support|admin)@/;

function verdict(email: string): [string, string] {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1 || /\s/.test(email)) return ['invalid', 'failed_syntax_check'];
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  if (domain === 'example.com') return SANDBOX[local] ?? ['invalid', 'mailbox_not_found'];
  if (domain === 'mailinator.com') return ['do_not_mail', 'disposable'];
  if (domain === 'refusing-server.nl') return local === 'known' ? ['valid', ''] : ['invalid', 'mailbox_not_found'];
  if (domain === 'accepts-all.nl') return ROLE.test(email) ? ['do_not_mail', 'role_based_catch_all'] : ['catch-all', ''];
  if (domain === 'greylisting.nl') return ['unknown', 'greylisted'];
  return ['invalid', 'no_dns_entries'];
}

/** The answer ZeroBounce's validate gives for this address. */
export function zeroBounceAnswer(email: string): Record<string, unknown> {
  const [status, subStatus] = verdict(email);
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? email.slice(at + 1) : null;
  const noHost = subStatus === 'no_dns_entries' || subStatus === 'failed_syntax_check' || subStatus === 'does_not_accept_mail';
  return {
    address: email,
    status,
    sub_status: subStatus,
    free_email: email.startsWith('free_email@') || domain === 'mailinator.com',
    did_you_mean: subStatus === 'possible_typo' ? email.replace(/@.*/, '@gmail.com') : null,
    account: at > 0 ? email.slice(0, at) : '',
    domain,
    domain_age_days: noHost ? '' : '9692',
    smtp_provider: noHost ? '' : 'example',
    mx_found: noHost ? 'false' : 'true',
    mx_record: noHost ? null : `mx.${domain}`,
    firstname: null,
    lastname: null,
    gender: null,
    country: null,
    region: null,
    city: null,
    zipcode: null,
    processed_at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
  };
}

export async function startZeroBounceServer(opts: { apiKey: string; credits?: number }): Promise<ZeroBounceStandIn> {
  const standIn = { asked: [] as string[], requests: 0, credits: opts.credits ?? 2500, failWith: null as number | null };
  const server = http.createServer((req, res) => {
    standIn.requests += 1;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (standIn.failWith !== null) return json(standIn.failWith, { error: 'Too Many Requests' });
    const u = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method !== 'GET') return json(405, { error: 'Method Not Allowed' });
    const key = u.searchParams.get('api_key');
    if (u.pathname === '/v2/getcredits') {
      if (key === null) return json(400, { error: 'Missing parameter: api_key.' });
      return json(200, { Credits: key === opts.apiKey ? String(standIn.credits) : '-1' });
    }
    if (u.pathname === '/v2/validate') {
      if (key === null) return json(400, { error: 'Missing parameter: api_key.' });
      const email = u.searchParams.get('email');
      if (email === null || !u.searchParams.has('ip_address')) return json(400, { error: 'Missing parameter: email or ip_address.' });
      if (key !== opts.apiKey || standIn.credits <= 0) return json(200, { error: 'Invalid API Key or your account ran out of credits' });
      standIn.asked.push(email);
      const answer = zeroBounceAnswer(email);
      // ZeroBounce charges no credit for an unknown result.
      if (answer.status !== 'unknown') standIn.credits -= 1;
      return json(200, answer);
    }
    json(404, { error: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

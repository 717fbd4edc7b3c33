// A real OAuth 2.0 / OpenID Connect authorization server on 127.0.0.1 (oidc-provider 8, ESM, so it
// runs as its own Node process; test/helpers/oauth-server.ts starts it). It issues authorization codes
// (PKCE), ID tokens with `email`, opaque access tokens and rotating refresh tokens, answers
// invalid_grant for a revoked or reused refresh token, and introspects tokens (for the SMTP and IMAP
// servers that check XOAUTH2). Its login, account choice (prompt=select_account) and consent are
// automatic: the account is OAUTH_TEST_EMAIL (verified), or the one the request's X-Test-Account header
// names (base64url JSON of the ID token's claims: whoever the test has sign in, the way a browser with
// another person's session would). Each screen shown answers X-Test-Prompt with its name.
// Prints one JSON line {issuer} when it listens. Configuration from the environment.
import http from 'node:http';
import Provider, { interactionPolicy } from 'oidc-provider';

const env = process.env;
const email = env.OAUTH_TEST_EMAIL ?? 'sales@example.com';
const clients = [
  {
    client_id: env.OAUTH_TEST_CLIENT_ID ?? 'outreach-test',
    client_secret: env.OAUTH_TEST_CLIENT_SECRET ?? 'outreach-test-secret-0123456789abcdef',
    redirect_uris: (env.OAUTH_TEST_REDIRECT_URIS ?? 'http://127.0.0.1/callback').split(','),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  },
  // The mail servers' own client: it may introspect any token.
  {
    client_id: 'mail-server',
    client_secret: 'mail-server-secret-0123456789abcdef',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
];

/** The accounts that signed in, by id (their e-mail): the claims their ID tokens carry. */
const accounts = new Map();
/** prompt=select_account: the account chooser, shown whenever it is asked for. */
const selectAccount = new interactionPolicy.Prompt({ name: 'select_account', requestable: true });

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  scopes: [
    'openid',
    'email',
    'offline_access',
    'https://mail.google.com/',
    'mail',
    'https://outlook.office.com/SMTP.Send',
    'https://outlook.office.com/IMAP.AccessAsUser.All',
  ],
  // Google's and Microsoft's address claims (Microsoft's optional verified_primary_email and xms_edov).
  claims: { openid: ['sub'], email: ['email', 'email_verified', 'preferred_username', 'verified_primary_email', 'xms_edov'] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, ...(accounts.get(sub) ?? { email, email_verified: true }) }) }),
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false }, introspection: { enabled: true, allowedPolicy: async () => true }, revocation: { enabled: true } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}`, policy: [selectAccount, ...interactionPolicy.base()] },
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  ttl: {
    AccessToken: Number(env.OAUTH_TEST_ACCESS_TTL ?? 3600),
    AuthorizationCode: 600,
    IdToken: 3600,
    RefreshToken: 86400,
    Grant: 86400,
    Interaction: 600,
    Session: 86400,
  },
  cookies: { keys: ['oauth-test-cookie-key-0123456789'] },
});
provider.proxy = false;

/** Automatic login and consent: the test account, every scope asked for. */
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  res.setHeader('X-Test-Prompt', details.prompt.name);
  let result;
  if (details.prompt.name === 'login' || details.prompt.name === 'select_account') {
    const header = req.headers['x-test-account'];
    const claims = header ? JSON.parse(Buffer.from(String(header), 'base64url').toString('utf8')) : { email, email_verified: true };
    const accountId = String(claims.email ?? claims.verified_primary_email ?? claims.preferred_username ?? email);
    accounts.set(accountId, claims);
    // The chooser picks (or signs in) the account; login is then satisfied with it.
    result = { select_account: {}, login: { accountId } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url?.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  callback(req, res);
});
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));

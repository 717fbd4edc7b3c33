// A real OAuth 2.0 / OpenID Connect authorization server on 127.0.0.1 (oidc-provider 8, ESM, so it
// runs as its own Node process; test/helpers/oauth-server.ts starts it). It issues authorization codes
// (PKCE), ID tokens with `email`, opaque access tokens and rotating refresh tokens, answers
// invalid_grant for a revoked or reused refresh token, and introspects tokens (for the SMTP and IMAP
// servers that check XOAUTH2). Its login and consent are automatic: the account is OAUTH_TEST_EMAIL.
// Prints one JSON line {issuer} when it listens. Configuration from the environment.
import http from 'node:http';
import Provider from 'oidc-provider';

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
  { client_id: 'mail-server', client_secret: 'mail-server-secret-0123456789abcdef', grant_types: [], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' },
];

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  scopes: ['openid', 'email', 'offline_access', 'https://mail.google.com/', 'mail'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email, email_verified: true }) }),
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false }, introspection: { enabled: true, allowedPolicy: async () => true }, revocation: { enabled: true } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  ttl: { AccessToken: Number(env.OAUTH_TEST_ACCESS_TTL ?? 3600), AuthorizationCode: 600, IdToken: 3600, RefreshToken: 86400, Grant: 86400, Interaction: 600, Session: 86400 },
  cookies: { keys: ['oauth-test-cookie-key-0123456789'] },
});
provider.proxy = false;

/** Automatic login and consent: the test account, every scope asked for. */
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  let result;
  if (details.prompt.name === 'login') {
    result = { login: { accountId: email } };
  } else {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
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

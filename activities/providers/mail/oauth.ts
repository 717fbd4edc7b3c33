import * as oauth from 'oauth4webapi';
import { OAUTH_DEFAULT_ENDPOINTS, OAUTH_EXTRA_PARAMS, OAUTH_SCOPES, type OAuthProviderKey } from './oauth-providers';

/**
 * OAuth mailboxes, on oauth4webapi: the service's OAuth
 * client per provider, the authorization-code flow with PKCE (the consent route), and one token
 * source that SMTP and IMAP both take: an access token from the refresh-token grant, cached until
 * shortly before it expires, a rotated refresh token handed to the store, and `invalid_grant`
 * reported as OAuthGrantRevoked (the caller pauses the mailbox for `auth`).
 */
export interface OAuthProviderClient {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** The ID token's expected issuer: fixed (Google), or from the token's tenant (Microsoft's `common` endpoints). */
  issuer: string | null;
}

export type OAuthClients = Partial<Record<OAuthProviderKey, OAuthProviderClient>>;

/** The clients configured by OAUTH_<PROVIDER>_* (a provider without a client id is not offered). */
export function oauthClientsFrom(env: object): OAuthClients {
  const vars = env as Record<string, string | undefined>;
  const out: OAuthClients = {};
  for (const p of ['google', 'microsoft'] as const) {
    const P = p.toUpperCase();
    const clientId = vars[`OAUTH_${P}_CLIENT_ID`];
    if (!clientId) continue;
    out[p] = {
      clientId,
      clientSecret: vars[`OAUTH_${P}_CLIENT_SECRET`] ?? '',
      authorizeUrl: vars[`OAUTH_${P}_AUTHORIZE_URL`] ?? OAUTH_DEFAULT_ENDPOINTS[p].authorizeUrl,
      tokenUrl: vars[`OAUTH_${P}_TOKEN_URL`] ?? OAUTH_DEFAULT_ENDPOINTS[p].tokenUrl,
      issuer: vars[`OAUTH_${P}_ISSUER`] ?? (p === 'google' ? 'https://accounts.google.com' : null),
    };
  }
  return out;
}

/**
 * The provider refuses the mailbox's refresh for good: the grant was revoked or expired
 * (invalid_grant; connect the mailbox again), or the service's client is refused (invalid_client,
 * unauthorized_client, invalid_scope; mend the client, then resume). The mailbox is paused (`auth`).
 */
export class OAuthGrantRevoked extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthGrantRevoked';
  }
}

/** The provider could not be asked (network, 5xx, malformed answer): transient, retry later. */
export class OAuthUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthUnavailable';
  }
}

const MICROSOFT_ISSUER = /^https:\/\/login\.microsoftonline\.com\/[0-9a-f-]{36}\/v2\.0$/;

function server(p: OAuthProviderKey, c: OAuthProviderClient): oauth.AuthorizationServer {
  const as: oauth.AuthorizationServer = { issuer: c.issuer ?? new URL(c.tokenUrl).origin, authorization_endpoint: c.authorizeUrl, token_endpoint: c.tokenUrl };
  if (p === 'microsoft' && !c.issuer) {
    // The `common` endpoints issue ID tokens with the user's tenant as issuer.
    // oauth4webapi's hook for multi-tenant issuers (exported, undocumented in its types; openid-client uses it the same way).
    (as as unknown as Record<symbol, unknown>)[(oauth as unknown as { _expectedIssuer: symbol })._expectedIssuer] = (result: { claims: { iss?: unknown } }) =>
      typeof result.claims.iss === 'string' && MICROSOFT_ISSUER.test(result.claims.iss)
        ? result.claims.iss
        : 'https://login.microsoftonline.com/{tenantid}/v2.0';
  }
  return as;
}

/**
 * How long a token endpoint may take. A refresh runs holding the mailbox's turn (a pooled connection
 * and its advisory lock), so it must end: oauth4webapi sets no timeout of its own.
 */
export const TOKEN_REQUEST_TIMEOUT_MS = 20_000;

/** Plain http only for a server on this machine (the tests' authorization server); every request with a timeout. */
function requestOptions(c: OAuthProviderClient) {
  const u = new URL(c.tokenUrl);
  const local = u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost');
  return { signal: () => AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS), ...(local && { [oauth.allowInsecureRequests]: true as const }) };
}

function clientOf(p: OAuthProviderKey, clients: OAuthClients): OAuthProviderClient {
  const c = clients[p];
  if (!c) throw new OAuthUnavailable(`no OAuth client is configured for ${p} (OAUTH_${p.toUpperCase()}_CLIENT_ID)`);
  return c;
}

/**
 * The authorization request: the URL to send the user to, and the PKCE verifier to keep (sealed) for
 * the callback. `loginHint`: the address the mailbox is for (the provider offers that account first).
 */
export async function authorizationRequest(
  p: OAuthProviderKey,
  clients: OAuthClients,
  a: { state: string; redirectUri: string; loginHint?: string | null },
): Promise<{ url: string; codeVerifier: string }> {
  const c = clientOf(p, clients);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const url = new URL(c.authorizeUrl);
  const params: Record<string, string> = {
    client_id: c.clientId,
    redirect_uri: a.redirectUri,
    response_type: 'code',
    scope: OAUTH_SCOPES[p],
    state: a.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...OAUTH_EXTRA_PARAMS[p],
    ...(a.loginHint && { login_hint: a.loginHint }),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { url: url.href, codeVerifier };
}

/**
 * The address the provider vouches for in the ID token, or why there is none. Google: `email` with
 * `email_verified` true. Microsoft (Entra ID never sends email_verified): `verified_primary_email` (the
 * user's primary SMTP address), else `email` with `xms_edov` true (the e-mail domain's owner verified
 * it); both are optional claims of the app registration. Never `preferred_username` (the sign-in
 * name: it can be changed and need not be an address that receives mail).
 */
export function verifiedAddress(p: OAuthProviderKey, claims: Record<string, unknown>): { address: string } | { refused: string } {
  const yes = (v: unknown) => v === true || v === 'true' || v === 1 || v === '1';
  if (p === 'google') {
    if (typeof claims.email !== 'string') return { refused: 'the Google ID token carries no email' };
    if (!yes(claims.email_verified)) return { refused: `Google has not verified ${claims.email} as the account's address (email_verified)` };
    return { address: claims.email };
  }
  const primary = Array.isArray(claims.verified_primary_email) ? claims.verified_primary_email[0] : claims.verified_primary_email;
  if (typeof primary === 'string' && primary) return { address: primary };
  if (typeof claims.email === 'string' && yes(claims.xms_edov)) return { address: claims.email };
  return {
    refused:
      'Microsoft did not vouch for an address: the ID token has neither verified_primary_email nor email with xms_edov (optional claims of the app registration)',
  };
}

/** Exchanges the code (PKCE): the address the ID token vouches for (or why none), and the refresh token. */
export async function exchangeCode(
  p: OAuthProviderKey,
  clients: OAuthClients,
  a: { code: string; state: string; iss?: string; codeVerifier: string; redirectUri: string },
): Promise<{ verified: { address: string } | { refused: string }; refreshToken: string }> {
  const c = clientOf(p, clients);
  const as = server(p, c);
  const client: oauth.Client = { client_id: c.clientId };
  const params = oauth.validateAuthResponse(as, client, new URLSearchParams({ code: a.code, state: a.state, ...(a.iss && { iss: a.iss }) }), a.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(c.clientSecret),
    params,
    a.redirectUri,
    a.codeVerifier,
    requestOptions(c),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(result)! as Record<string, unknown>;
  if (!result.refresh_token) throw new OAuthUnavailable('the provider issued no refresh token (offline access was not granted)');
  return { verified: verifiedAddress(p, claims), refreshToken: result.refresh_token };
}

/** What a refresh may do to the stored mailbox, inside its turn (one transaction, one connection). */
export interface RefreshTurn {
  /** Replaces the refresh token with the rotated one. */
  save(rotated: string): Promise<void>;
  /** The provider refused for good: pause the mailbox (`auth`) with the reason. */
  pause(reason: string): Promise<void>;
}

/** What the token source needs of storage: the current refresh token, and a turn to change it in. */
export interface RefreshTokenStore {
  /**
   * Runs fn with the mailbox's refresh token, one refresh at a time per mailbox (a rotated token is
   * used once). What fn does through the turn commits with its answer.
   */
  withRefreshToken<T>(mailbox: MailboxCredentialRef, fn: (refreshToken: string, turn: RefreshTurn) => Promise<T>): Promise<T>;
}

/** Token endpoint errors that no retry mends: the grant (invalid_grant) or the service's client is refused. */
const REFUSED_FOR_GOOD = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'invalid_scope']);

/** The OAuth error code of a failed token request: from the body, or from a WWW-Authenticate challenge (a 401). */
function tokenErrorCode(err: unknown): string | null {
  if (err instanceof oauth.ResponseBodyError) return err.error;
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    const code = err.cause.map((c) => c.parameters.error).find((e): e is string => typeof e === 'string');
    return code ?? (err.status === 401 ? 'invalid_client' : null);
  }
  return null;
}

function refusalReason(p: OAuthProviderKey, code: string): string {
  return code === 'invalid_grant'
    ? `the ${p} grant was revoked or expired (invalid_grant): connect the mailbox again`
    : `the ${p} token endpoint refused the service's OAuth client (${code}): check OAUTH_${p.toUpperCase()}_CLIENT_ID, its secret and scopes, then resume the mailbox`;
}

export interface MailboxCredentialRef {
  organizationId: string;
  mailboxId: string;
  provider: OAuthProviderKey;
}

/**
 * Access tokens for OAuth mailboxes, for SMTP and IMAP alike. A token is reused until shortly before
 * it expires (a minute, or half its life when that is shorter); then the refresh-token grant runs
 * under the store's per-mailbox turn, and a rotated refresh token replaces the stored one in the same turn.
 */
export class OAuthTokenSource {
  private readonly cache = new Map<string, { token: string; freshUntil: number }>();

  constructor(
    private readonly clients: OAuthClients,
    private readonly store: RefreshTokenStore,
    private readonly now: () => number = Date.now,
  ) {}

  async accessToken(m: MailboxCredentialRef, opts: { force?: boolean } = {}): Promise<string> {
    const cached = this.cache.get(m.mailboxId);
    if (!opts.force && cached && cached.freshUntil > this.now()) return cached.token;
    const c = clientOf(m.provider, this.clients);
    const as = server(m.provider, c);
    const client: oauth.Client = { client_id: c.clientId };
    const outcome = await this.store.withRefreshToken(m, async (refreshToken, turn): Promise<{ token: string } | { refused: string }> => {
      // Another caller of this process may have refreshed while this one waited for the turn.
      const again = this.cache.get(m.mailboxId);
      if (!opts.force && again && again.freshUntil > this.now()) return { token: again.token };
      let result: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(c.clientSecret), refreshToken, requestOptions(c));
        result = await oauth.processRefreshTokenResponse(as, client, response);
      } catch (err) {
        const code = tokenErrorCode(err);
        if (code && REFUSED_FOR_GOOD.has(code)) {
          this.cache.delete(m.mailboxId);
          // Paused in this turn's own transaction: no second connection is needed while this one holds the
          // lock others wait on; the error is raised once the pause has committed.
          const reason = refusalReason(m.provider, code);
          await turn.pause(reason);
          return { refused: reason };
        }
        throw new OAuthUnavailable(
          `the ${m.provider} token endpoint could not refresh the access token: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500),
        );
      }
      if (result.refresh_token && result.refresh_token !== refreshToken) await turn.save(result.refresh_token);
      const lifeMs = (result.expires_in ?? 3600) * 1000;
      this.cache.set(m.mailboxId, { token: result.access_token, freshUntil: this.now() + lifeMs - Math.min(60_000, lifeMs / 2) });
      return { token: result.access_token };
    });
    if ('refused' in outcome) throw new OAuthGrantRevoked(outcome.refused);
    return outcome.token;
  }

  /** Forgets a token the server refused (it may have been revoked before it expired). */
  forget(mailboxId: string): void {
    this.cache.delete(mailboxId);
  }
}

/** The SASL XOAUTH2 initial response (Google's and Microsoft's format). */
export function xoauth2(user: string, accessToken: string): string {
  return Buffer.from(`user=${user}\x01auth=Bearer ${accessToken}\x01\x01`).toString('base64');
}

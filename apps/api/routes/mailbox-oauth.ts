import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Router } from 'express';
import { defaultHolidayCountry, getMailbox, insertMailbox, mailboxByAddress, updateMailbox } from '../../../db/queries/mailboxes';
import { claimOAuthState, insertOAuthState, setMailboxAuth } from '../../../db/queries/mailbox-oauth';
import { resumeMailbox } from '../../../db/queries/mailbox-protection';
import { mailboxSecretContext, type SecretBox } from '../../../db/secrets';
import { asUser } from '../../../db/tenancy';
import { checkEmail } from '../../../domain/companies/identity';
import { DEFAULT_PROTECTION } from '../../../domain/sending/protection';
import { authorizationRequest, exchangeCode, type OAuthClients } from '../../../activities/providers/mail/oauth';
import { OAUTH_PROVIDER_SERVERS, type OAuthProviderKey } from '../../../activities/providers/mail/oauth-providers';
import { gateProblems, userOf, withRole, WRITE } from '../access';
import type { ApiDeps } from '../app';
import { ProblemError, validationFailed } from '../errors';
import { oauthCallbackQuery, oauthStartBody } from '../schemas';
import { parseBody, parseQuery } from '../validate';
import { MAILBOX_DEFAULTS } from './mailboxes';

/**
 * Connecting a Google or Microsoft mailbox without pasting tokens (shared/api-contract.md, "OAuth
 * mailboxes"): the authorization-code flow with PKCE S256. POST /mailboxes/oauth/start keeps a
 * single-use state (its SHA-256 only) bound to the caller and the organization for 10 minutes, with
 * the PKCE verifier sealed; GET /mailboxes/oauth/callback (no bearer token: the state authenticates)
 * consumes it, exchanges the code, and creates the mailbox of the ID token's address, or gives the one
 * with that address the new refresh token, acting as the user who started (still a member).
 */
export interface OAuthDeps {
  clients: OAuthClients;
  /** The callback's public URL, registered at the provider (PUBLIC_BASE_URL + /mailboxes/oauth/callback). */
  redirectUri: string;
}

const STATE_TTL_MS = 10 * 60 * 1000;
const hashOf = (state: string) => createHash('sha256').update(state).digest();
const verifierContext = (organizationId: string, stateHash: Buffer) => `oauth_state:${organizationId}:${stateHash.toString('hex')}`;

function ready(deps: ApiDeps, provider?: OAuthProviderKey): { oauth: OAuthDeps; secrets: SecretBox } {
  if (!deps.secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'OAuth mailboxes are not available: INTEGRATION_SECRET_KEY is not configured');
  if (!deps.oauth || (provider && !deps.oauth.clients[provider])) {
    throw new ProblemError('SERVICE_UNAVAILABLE', `OAuth mailboxes are not available: OAUTH_${(provider ?? 'google').toUpperCase()}_CLIENT_ID is not configured`);
  }
  return { oauth: deps.oauth, secrets: deps.secrets };
}

const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The authenticated half: POST /mailboxes/oauth/start. */
export function mailboxOAuthStartRoutes(deps: ApiDeps): Router {
  const r = Router();
  r.post('/mailboxes/oauth/start', async (req, res) => {
    const body = parseBody(oauthStartBody, req);
    const { oauth, secrets } = ready(deps, body.provider);
    const state = randomBytes(32).toString('base64url');
    const stateHash = hashOf(state);
    const { url, codeVerifier } = await authorizationRequest(body.provider, oauth.clients, { state, redirectUri: oauth.redirectUri });
    await withRole(deps.db, req, body.organizationId, WRITE, (tx) =>
      insertOAuthState(tx, {
        organizationId: body.organizationId,
        userId: userOf(req),
        provider: body.provider,
        stateHash,
        verifier: secrets.seal(codeVerifier, verifierContext(body.organizationId, stateHash)),
        expiresAt: new Date(Date.now() + STATE_TTL_MS),
      }),
    );
    res.json({ authorization_url: url, state });
  });
  return r;
}

/** The public half: GET /mailboxes/oauth/callback (registered before authentication). */
export function mailboxOAuthCallbackRoutes(deps: ApiDeps): Router {
  const r = Router();
  r.get('/mailboxes/oauth/callback', async (req, res) => {
    const q = parseQuery(oauthCallbackQuery, req);
    const { oauth, secrets } = ready(deps);
    const stateHash = hashOf(q.state);
    const claimed = await claimOAuthState(deps.db, stateHash);
    if (!claimed) throw validationFailed([{ path: 'query.state', message: 'is unknown or was used already: start again' }]);
    if (claimed.expired) throw validationFailed([{ path: 'query.state', message: 'has expired (10 minutes): start again' }]);
    if (q.error || !q.code) throw validationFailed([{ path: q.error ? 'query.error' : 'query.code', message: q.error ? `the provider answered ${q.error}${q.error_description ? `: ${q.error_description}` : ''}` : 'is required' }]);
    const provider = claimed.provider as OAuthProviderKey;
    const codeVerifier = secrets.open(claimed.verifier_ciphertext, verifierContext(claimed.organization_id, stateHash));
    let granted: { email: string; refreshToken: string };
    try {
      granted = await exchangeCode(provider, oauth.clients, { code: q.code, state: q.state, iss: q.iss, codeVerifier, redirectUri: oauth.redirectUri });
    } catch (err) {
      throw validationFailed([{ path: 'query.code', message: `the ${provider} token endpoint did not accept the code: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300) }]);
    }
    const checked = checkEmail(granted.email);
    if (!checked.ok) throw validationFailed([{ path: 'id_token.email', message: checked.reason }]);
    const address = (checked as { email: string }).email;
    const orgId = claimed.organization_id;
    const { mailbox, created } = await gateProblems('member', () =>
      asUser(
        deps.db,
        claimed.user_id,
        async (tx) => {
          const existing = await mailboxByAddress(tx, orgId, address);
          const id = existing?.id ?? randomUUID();
          const sealed = secrets.seal(granted.refreshToken, mailboxSecretContext(orgId, id));
          if (existing) {
            await updateMailbox(tx, id, { secret: sealed });
            await setMailboxAuth(tx, id, provider);
            // A mailbox paused because its grant died is connected again.
            await resumeMailbox(tx, id, 'auth');
            return { mailbox: (await getMailbox(tx, id))!, created: false };
          }
          const servers = OAUTH_PROVIDER_SERVERS[provider];
          const made = await insertMailbox(tx, {
            id,
            organizationId: orgId,
            address,
            domain: address.split('@')[1]!,
            secret: sealed,
            auth: { type: 'oauth2', provider },
            displayName: null,
            smtp: { ...servers.smtp, username: address },
            imap: { ...servers.imap, username: address },
            timezone: MAILBOX_DEFAULTS.timezone,
            sendingWindow: MAILBOX_DEFAULTS.sendingWindow,
            sendingDays: MAILBOX_DEFAULTS.sendingDays,
            holidayCountry: await defaultHolidayCountry(tx, orgId),
            holidayRegion: null,
            dailyCap: MAILBOX_DEFAULTS.dailyCap,
            minGapSeconds: MAILBOX_DEFAULTS.minGapSeconds,
            dkimSelector: null,
            rampUp: null,
            protection: DEFAULT_PROTECTION,
          });
          await deps.workflows.ensureMailboxHealthSchedule(orgId, id);
          return { mailbox: made, created: true };
        },
        { organizationId: orgId, minRole: WRITE },
      ),
    );
    await deps.workflows.syncMailboxInboxSchedule(mailbox);
    res
      .status(200)
      .set(PAGE_HEADERS)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Mailbox connected</title></head>` +
          `<body><h1>Mailbox connected</h1><p>${escapeHtml(mailbox.address)} is ${created ? 'connected' : 'connected again'} (${provider}). You can close this page.</p>` +
          `<p hidden data-mailbox-id="${mailbox.id}"></p></body></html>\n`,
      );
  });
  return r;
}

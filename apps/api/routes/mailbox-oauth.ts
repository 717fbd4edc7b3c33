import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Router } from 'express';
import { defaultHolidayCountry, getMailbox, insertMailbox, mailboxByAddress, updateMailbox } from '../../../db/queries/mailboxes';
import { claimOAuthState, deleteStaleOAuthStates, insertOAuthState, setMailboxAuth } from '../../../db/queries/mailbox-oauth';
import { domainLock, verifiedDomainFor } from '../../../db/queries/domains';
import { lockForAll } from '../../../db/locks';
import { resumeMailbox } from '../../../db/queries/mailbox-protection';
import { mailboxSecretContext, type SecretBox } from '../../../db/secrets';
import { asUser } from '../../../db/tenancy';
import { checkEmail } from '../../../domain/companies/identity';
import { DEFAULT_PROTECTION } from '../../../domain/sending/protection';
import { authorizationRequest, exchangeCode } from '../../../activities/providers/mail/oauth';
import { OAUTH_PROVIDER_SERVERS, type OAuthProviderKey } from '../../../activities/providers/mail/oauth-providers';
import { gateProblems, userOf, withRole } from '../access';
import type { ApiDeps, OAuthDeps } from '../deps';
import { bind } from '../bind';
import { ProblemError, validationFailed } from '../errors';
import { operations } from './mailbox-oauth.schemas';
import { MAILBOX_DEFAULTS } from './mailboxes';

/**
 * Connecting a Google or Microsoft mailbox without pasting tokens: the authorization-code flow with PKCE S256. POST /mailboxes/oauth/start keeps a
 * single-use state (its SHA-256 only) bound to the caller and the organization for 10 minutes, with
 * the PKCE verifier sealed; GET /mailboxes/oauth/callback (no bearer token: the state authenticates)
 * consumes it, exchanges the code, and creates the mailbox of the ID token's verified address (or gives
 * the one with that address the new refresh token and the provider's servers), acting as the user who
 * started (still a member). Only for an address of a domain the organization proved (domains.ts), and
 * only the address the start named, if it named one: a link that reaches someone else connects nothing.
 */
const STATE_TTL_MS = 10 * 60 * 1000;
/** The role a callback's user must still hold: the one that started the link (the callback itself has no token). */
const START_ROLE = operations.find((o): o is Extract<(typeof operations)[number], { id: 'startMailboxOAuth' }> => o.id === 'startMailboxOAuth')!.role;
const hashOf = (state: string) => createHash('sha256').update(state).digest();
const verifierContext = (organizationId: string, stateHash: Buffer) => `oauth_state:${organizationId}:${stateHash.toString('hex')}`;

function ready(deps: ApiDeps, provider?: OAuthProviderKey): { oauth: OAuthDeps; secrets: SecretBox } {
  if (!deps.secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'OAuth mailboxes are not available: INTEGRATION_SECRET_KEY is not configured');
  if (!deps.oauth || (provider && !deps.oauth.clients[provider])) {
    throw new ProblemError(
      'SERVICE_UNAVAILABLE',
      `OAuth mailboxes are not available: OAUTH_${(provider ?? 'google').toUpperCase()}_CLIENT_ID is not configured`,
    );
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

/** Why a callback connects nothing: answered as its page (403), with nothing stored. */
class Refused extends Error {}

/** The page the callback answers: what happened, for the person whose browser came back from the provider. */
function sendPage(res: import('express').Response, status: number, title: string, paragraphs: string[]): void {
  res
    .status(status)
    .set(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>` +
        `<body><h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</body></html>\n`,
    );
}

/** The address a start names, checked: a valid address of a domain the organization verified. */
function startAddress(raw: string | undefined): { address: string; domain: string } | null {
  if (raw === undefined) return null;
  const checked = checkEmail(raw);
  if (!checked.ok) throw validationFailed([{ path: 'body.address', message: checked.reason }]);
  const address = (checked as { email: string }).email;
  return { address, domain: address.split('@')[1]! };
}

/** The authenticated half: POST /mailboxes/oauth/start. */
export function mailboxOAuthStartRoutes(deps: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  serve('startMailboxOAuth', async (req, res, call) => {
    const body = call.body;
    const named = startAddress(body.address);
    const { oauth, secrets } = ready(deps, body.provider);
    const state = randomBytes(32).toString('base64url');
    const stateHash = hashOf(state);
    const { url, codeVerifier } = await authorizationRequest(body.provider, oauth.clients, {
      state,
      redirectUri: oauth.redirectUri,
      loginHint: named?.address,
    });
    await withRole(deps.db, req, body.organizationId, call.role, async (tx) => {
      // Said now, as the callback will refuse it: an address of a domain the organization has not proven.
      if (named && !(await verifiedDomainFor(tx, body.organizationId, named.domain))) {
        throw validationFailed([
          {
            path: 'body.address',
            message: `${named.domain} is not verified by the organization: an owner or admin adds it (POST /domains) and verifies it first`,
          },
        ]);
      }
      await deleteStaleOAuthStates(tx, body.organizationId);
      await insertOAuthState(tx, {
        organizationId: body.organizationId,
        userId: userOf(req),
        provider: body.provider,
        address: named?.address ?? null,
        stateHash,
        verifier: secrets.seal(codeVerifier, verifierContext(body.organizationId, stateHash)),
        expiresAt: new Date(Date.now() + STATE_TTL_MS),
      });
    });
    res.json({ authorization_url: url, state });
  });
  return r;
}

/** The public half: GET /mailboxes/oauth/callback (registered before authentication). */
export function mailboxOAuthCallbackRoutes(deps: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  serve('mailboxOAuthCallback', async (req, res, call) => {
    const q = call.query;
    const { oauth, secrets } = ready(deps);
    const stateHash = hashOf(q.state);
    const claimed = await claimOAuthState(deps.db, stateHash);
    if (!claimed) throw validationFailed([{ path: 'query.state', message: 'is unknown or was used already: start again' }]);
    if (claimed.expired) throw validationFailed([{ path: 'query.state', message: 'has expired (10 minutes): start again' }]);
    if (q.error || !q.code)
      throw validationFailed([
        {
          path: q.error ? 'query.error' : 'query.code',
          message: q.error ? `the provider answered ${q.error}${q.error_description ? `: ${q.error_description}` : ''}` : 'is required',
        },
      ]);
    const provider = claimed.provider as OAuthProviderKey;
    const codeVerifier = secrets.open(claimed.verifier_ciphertext, verifierContext(claimed.organization_id, stateHash));
    let granted: Awaited<ReturnType<typeof exchangeCode>>;
    try {
      granted = await exchangeCode(provider, oauth.clients, { code: q.code, state: q.state, iss: q.iss, codeVerifier, redirectUri: oauth.redirectUri });
    } catch (err) {
      throw validationFailed([
        {
          path: 'query.code',
          message: `the ${provider} token endpoint did not accept the code: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300),
        },
      ]);
    }
    const orgId = claimed.organization_id;
    try {
      // Only the address the provider vouches for, only the one the start named (if it named one), and
      // only in a domain the organization proved: whoever completes a link connects nothing else.
      if ('refused' in granted.verified) throw new Refused(granted.verified.refused);
      const checked = checkEmail(granted.verified.address);
      if (!checked.ok) throw new Refused(`the provider's address ${granted.verified.address} cannot be used: ${checked.reason}`);
      const address = (checked as { email: string }).email;
      if (claimed.address && claimed.address !== address) {
        throw new Refused(
          `you signed in as ${address}, but this link was made to connect ${claimed.address}: sign in with that account, or ask for a link for yours`,
        );
      }
      const domain = address.split('@')[1]!;
      // No token here (the state names the user who started): that user must still hold startMailboxOAuth's role.
      const { mailbox, created } = await gateProblems(START_ROLE, () =>
        asUser(
          deps.db,
          claimed.user_id,
          async (tx) => {
            // One connect of an address at a time (a second one then finds the mailbox and updates it), and none
            // while its domain is being deleted (DELETE /domains takes the domain's lock too).
            await lockForAll(tx, [`mailbox_address:${orgId}:${address}`, domainLock(orgId, domain)]);
            if (!(await verifiedDomainFor(tx, orgId, domain))) {
              throw new Refused(`${domain} is not verified by the organization: an owner or admin adds it (POST /domains) and proves it in DNS first`);
            }
            const existing = await mailboxByAddress(tx, orgId, address);
            const id = existing?.id ?? randomUUID();
            const sealed = secrets.seal(granted.refreshToken, mailboxSecretContext(orgId, id));
            const servers = OAUTH_PROVIDER_SERVERS[provider];
            const smtp = { ...servers.smtp, username: address };
            const imap = { ...servers.imap, username: address };
            if (existing) {
              // The provider's servers again: the tokens of this grant go nowhere else, whoever set the servers before.
              await updateMailbox(tx, id, { secret: sealed, smtp, imap });
              await setMailboxAuth(tx, id, provider);
              // A mailbox paused because its grant died is connected again.
              await resumeMailbox(tx, id, 'auth');
              return { mailbox: (await getMailbox(tx, id))!, created: false };
            }
            const made = await insertMailbox(tx, {
              id,
              organizationId: orgId,
              address,
              domain,
              secret: sealed,
              auth: { type: 'oauth2', provider },
              displayName: null,
              smtp,
              imap,
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
            return { mailbox: made, created: true };
          },
          { organizationId: orgId, minRole: START_ROLE },
        ),
      );
      // The schedules once the mailbox is committed (both idempotent: a connect again mends a missing one).
      await deps.workflows.ensureMailboxHealthSchedule(orgId, mailbox.id);
      await deps.workflows.syncMailboxInboxSchedule(mailbox);
      sendPage(res, 200, 'Mailbox connected', [
        `${escapeHtml(mailbox.address)} is ${created ? 'connected' : 'connected again'} (${provider}). You can close this page.`,
        `<span hidden data-mailbox-id="${mailbox.id}"></span>`,
      ]);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      sendPage(res, 403, 'Mailbox not connected', [`Nothing was connected: ${escapeHtml(err.message)}.`, 'You can close this page.']);
    }
  });
  return r;
}

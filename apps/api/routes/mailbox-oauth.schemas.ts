import { z } from 'zod';
import { record, uuid, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/mailbox-oauth.ts: connecting a mailbox by OAuth. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** POST /mailboxes/oauth/start. */
export const oauthStartBody = z
  .object({
    organizationId: uuid,
    provider: z.enum(['google', 'microsoft']),
    address: z.string().trim().max(320).optional().describe('The mailbox to connect: sent as login_hint; the callback connects no other address'),
  })
  .strict();

/** GET /mailboxes/oauth/callback (no bearer token: the state authenticates). Not strict: providers add parameters of their own (Google: scope, authuser, prompt). */
export const oauthCallbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(200),
  iss: z.string().url().max(500).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
});

export const OAuthStart = record(
  'OAuthStart',
  'Where to send the user to connect a mailbox, and the single-use state of that request',
  z.object({
    authorization_url: z.string().describe("The provider's authorization URL (code flow, PKCE S256)"),
    state: z.string().describe('Single-use, bound to the caller and organization, valid 10 minutes'),
  }),
);

export const operations = [
  {
    id: 'startMailboxOAuth',
    mcp: 'hidden',
    method: 'post',
    path: '/mailboxes/oauth/start',
    tag: 'Mailboxes',
    summary:
      "Start connecting a Google or Microsoft mailbox: the authorization URL (code flow, PKCE S256, always with the provider's account screen; login_hint when `address` names the mailbox, which must be of a verified domain) and its single-use state (10 minutes, bound to the caller and organization); 503 without the provider's OAuth client",
    role: 'member',
    body: oauthStartBody,
    answer: OAuthStart,
    problems: [503],
  },
  {
    id: 'mailboxOAuthCallback',
    method: 'get',
    path: '/mailboxes/oauth/callback',
    tag: 'Mailboxes',
    summary:
      "Where the provider sends the user back (no bearer token: the state authenticates): exchanges the code, creates the mailbox of the ID token's verified address (or gives the existing one the new grant and the provider's servers), answers a small HTML page; a reused or expired state is 400",
    role: 'none',
    query: oauthCallbackQuery,
    media: 'text/html',
    answer: z.string(),
    problems: [400, 503],
    pages: {
      403: 'Nothing connected, and the page says why: the provider did not vouch for the address, it is not the address the start named, or its domain is not verified by the organization',
    },
  },
] as const satisfies readonly Operation[];

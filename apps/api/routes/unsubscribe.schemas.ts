import { z } from 'zod';
import type { Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/unsubscribe.ts: the one-click unsubscribe page and form
 * (RFC 8058). Its request schemas, the records it answers (registered with `record`) and its
 * operations, which apps/api/openapi.ts assembles into the OpenAPI document.
 */

/** The form a mail client posts to /u/{token} (RFC 8058); an empty body is accepted too. */
export const unsubscribeForm = z.object({ 'List-Unsubscribe': z.literal('One-Click') }).partial();

/** The one-click unsubscribe token (domain/outreach/unsubscribe-token.ts). */
const UNSUBSCRIBE_TOKEN = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{64}$',
  description: 'base64url(message id || HMAC-SHA256), from the List-Unsubscribe header',
};

export const operations = [
  // One-click unsubscribe: no token, the link itself is the authority (RFC 8058).
  {
    id: 'showUnsubscribePage',
    method: 'get',
    path: '/u/{token}',
    tag: 'Compliance',
    summary: 'The unsubscribe page of an e-mail: a button that POSTs (changes nothing; 404 for an unknown link)',
    role: 'none',
    pathSchemas: { token: UNSUBSCRIBE_TOKEN },
    answer: z.string(),
    media: 'text/html',
    problems: [503],
  },
  {
    id: 'unsubscribeRecipient',
    method: 'post',
    path: '/u/{token}',
    tag: 'Compliance',
    summary: 'One-click unsubscribe: suppresses the address, skips its pending messages, stops its enrollments (a repeat changes nothing)',
    role: 'none',
    pathSchemas: { token: UNSUBSCRIBE_TOKEN },
    form: unsubscribeForm,
    answer: z.string(),
    media: 'text/html',
    problems: [503],
  },
] as const satisfies readonly Operation[];

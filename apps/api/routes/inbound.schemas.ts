import { id, record, type Operation } from '../contract';
import { z } from 'zod';

/**
 * The HTTP contract of apps/api/routes/inbound.ts: raw inbound e-mail handed to a mailbox. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const InboundReceipt = record(
  'InboundReceipt',
  'A received e-mail handed over: the stored inbound message (202), or duplicate: true when the mailbox already has its Message-ID (200)',
  z.object({
    message_id: id.optional().describe('The inbound message (202)'),
    duplicate: z.literal(true).optional().describe('Already stored: nothing changed (200)'),
  }),
);

export const operations = [
  {
    id: 'receiveInboundMessage',
    method: 'post',
    path: '/mailboxes/{mailboxId}/inbound',
    tag: 'Mailboxes',
    summary:
      'Hand over one received e-mail (raw RFC 822): stored, threaded and triaged like mail read from the IMAP inbox (202; 200 {duplicate: true} when its Message-ID is stored; 413 over INBOUND_MAX_BYTES)',
    role: 'member',
    raw: { media: 'message/rfc822', description: 'One raw RFC 822 message, headers and body, as received' },
    status: 202,
    repeatStatus: 200,
    answer: InboundReceipt,
  },
] as const satisfies readonly Operation[];

import { z } from 'zod';
import { record, type Operation } from '../contract';

/**
 * The HTTP contract of apps/api/routes/variants.ts: the results per variant of a campaign's steps
 * (db/queries/variants.ts defines each figure). Its request schemas, the records it answers
 * (registered with `record`) and its operations, which apps/api/openapi.ts assembles into the OpenAPI
 * document.
 */

const count = z.number().int().min(0);

export const VariantResult = record(
  'VariantResult',
  "One variant of a campaign step and what followed its sent messages, each counted once per sent message (one per enrollment and step), from the message's sending until the enrollment's next message was sent. Opens are not measured",
  z.object({
    position: z.number().int().min(1).describe("The step's position"),
    variant_key: z.string(),
    sent: count.describe('Messages of the variant sent'),
    replied: count.describe('Of those, answered by a reply of the contact with an intent (as analytics counts replies; out-of-office answers left out)'),
    positive_replies: count.describe('Of those, answered by a reply with intent interested or meeting_request'),
    meetings: count.describe('Of those, followed by a meeting of the contact that was not cancelled'),
    won: count.describe("Of those followed by a meeting, the ones whose campaign's opportunity is won"),
  }),
);

export const operations = [
  {
    id: 'campaignVariants',
    method: 'get',
    path: '/campaigns/{campaignId}/variants',
    tag: 'Campaigns',
    summary: 'Results per step variant: sent, replied, positive replies, meetings and won, counted per sent message of each variant (opens are not measured)',
    role: 'viewer',
    answer: z.array(VariantResult),
  },
] as const satisfies readonly Operation[];

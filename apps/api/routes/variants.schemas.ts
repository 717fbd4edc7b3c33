import { z } from 'zod';
import * as r from '../responses';

/**
 * Step variants (issue 19 point 2): the results per variant answered by GET
 * /campaigns/{campaignId}/variants (db/queries/variants.ts defines each figure). Registered with the
 * OpenAPI document where it is built (apps/api/openapi.ts).
 */
function record<S extends z.ZodType>(id: string, description: string, schema: S): S {
  r.records.add(schema, { id, description });
  r.RECORD_DESCRIPTIONS.set(id, description);
  return schema;
}

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

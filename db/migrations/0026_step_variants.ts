import { Kysely, sql } from 'kysely';

/**
 * Step variants: a campaign step may carry 2 to 5 variants `[{key, subject?,
 * instructions?}]` (sequence_steps.variants, [] for none, the count and shape held by a constraint; keys unique in
 * the step are checked by the API schema). Each enrollment gets one variant per step
 * (domain/outreach/variants.ts); its message stores the key (messages.variant_key), which the
 * results per variant (GET /campaigns/{id}/variants) group by.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sequence_steps ADD COLUMN variants jsonb NOT NULL DEFAULT '[]'
      CONSTRAINT sequence_steps_variants_shape CHECK (
        jsonb_typeof(variants) = 'array' AND (jsonb_array_length(variants) = 0 OR jsonb_array_length(variants) BETWEEN 2 AND 5)
      )
  `.execute(db);
  await sql`
    ALTER TABLE messages ADD COLUMN variant_key text
      CONSTRAINT messages_variant_key_length CHECK (variant_key IS NULL OR length(variant_key) BETWEEN 1 AND 40)
  `.execute(db);
  await sql`CREATE INDEX messages_campaign_variant_idx ON messages (campaign_id, step_id, variant_key) WHERE variant_key IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS messages_campaign_variant_idx`.execute(db);
  await sql`ALTER TABLE messages DROP COLUMN IF EXISTS variant_key`.execute(db);
  await sql`ALTER TABLE sequence_steps DROP COLUMN IF EXISTS variants`.execute(db);
}

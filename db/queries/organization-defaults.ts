import { DEFAULT_PROFILE } from '../../domain/classification/default-profile';
import { DEFAULT_RULES, DEFAULT_THRESHOLDS } from '../../domain/scoring/defaults';
import type { Tx } from '../tenancy';

/**
 * What every new organization starts with, so that one created through the API is usable at once:
 * compliance settings, scoring config version 1 with the default rules, and the default industry
 * profile. Later stages add their defaults here.
 */
export async function seedOrganizationDefaults(tx: Tx, organizationId: string, actorId?: string): Promise<void> {
  await tx
    .insertInto('compliance_settings')
    .values({ organization_id: organizationId })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .execute();

  const hasConfig = await tx.selectFrom('scoring_configs').select('id').where('organization_id', '=', organizationId).executeTakeFirst();
  if (!hasConfig) {
    const config = await tx
      .insertInto('scoring_configs')
      .values({
        organization_id: organizationId,
        version: 1,
        is_active: true,
        ignore_below: DEFAULT_THRESHOLDS.ignoreBelow,
        qualify_at: DEFAULT_THRESHOLDS.qualifyAt,
        opportunity_at: DEFAULT_THRESHOLDS.opportunityAt,
        created_by: actorId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('scoring_rules')
      .values(
        DEFAULT_RULES.map((r) => ({
          organization_id: organizationId,
          scoring_config_id: config.id,
          dimension: r.dimension,
          rule_key: r.ruleKey,
          weight: r.weight,
          max_points: r.maxPoints,
          params: JSON.stringify(r.params),
        })),
      )
      .execute();
  }

  const hasProfile = await tx.selectFrom('industry_profiles').select('id').where('organization_id', '=', organizationId).executeTakeFirst();
  if (!hasProfile) {
    const profile = await tx
      .insertInto('industry_profiles')
      .values({
        organization_id: organizationId,
        key: DEFAULT_PROFILE.key,
        name: DEFAULT_PROFILE.name,
        description: DEFAULT_PROFILE.description,
        proposition_text: DEFAULT_PROFILE.propositionText,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('products')
      .values(
        DEFAULT_PROFILE.products.map((p) => ({
          organization_id: organizationId,
          industry_profile_id: profile.id,
          key: p.key,
          name: p.name,
          fit_keywords: p.fitKeywords,
        })),
      )
      .execute();
    await tx
      .insertInto('personas')
      .values(
        DEFAULT_PROFILE.personas.map((p, i) => ({
          organization_id: organizationId,
          industry_profile_id: profile.id,
          segment: p.segment,
          title_keywords: p.titleKeywords,
          priority: DEFAULT_PROFILE.personas.length - i,
        })),
      )
      .execute();
  }
}

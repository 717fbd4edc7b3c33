import { sql } from 'kysely';
import { lockFor } from '../locks';
import type { Tx } from '../tenancy';
import { activeScoringConfig, industryProfile, RULE_ORDER } from './pipeline';
import { diff, writeAudit } from './audit';

const CONFIG_COLUMNS = [
  'id',
  'organization_id',
  'version',
  'is_active',
  'ignore_below',
  'qualify_at',
  'opportunity_at',
  'home_lat',
  'home_lng',
  'created_at',
  'updated_at',
] as const;
const RULE_COLUMNS = [
  'id',
  'scoring_config_id',
  'organization_id',
  'dimension',
  'rule_key',
  'weight',
  'max_points',
  'params',
  'created_at',
  'updated_at',
] as const;

export async function scoringSettings(tx: Tx, organizationId: string) {
  const config = await tx
    .selectFrom('scoring_configs')
    .select(CONFIG_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!config) return undefined;
  const rules = await tx
    .selectFrom('scoring_rules')
    .select(RULE_COLUMNS)
    .where('scoring_config_id', '=', config.id)
    .orderBy(RULE_ORDER)
    .orderBy('rule_key')
    .execute();
  return { config, rules };
}

export type ScoringPatch = Partial<{ ignore_below: number; qualify_at: number; opportunity_at: number; home_lat: number | null; home_lng: number | null }>;

/** A rule's new weight and cap, by rule key (PATCH /settings/scoring `rules`). */
export interface RulePatch {
  ruleKey: string;
  weight?: number;
  maxPoints?: number;
}

export class ThresholdOrderError extends Error {}

/** A rule patch names a rule key the active config does not have (index: its place in the list). */
export class UnknownRuleError extends Error {
  constructor(
    readonly index: number,
    readonly ruleKey: string,
  ) {
    super(`is not a rule of the active scoring config: ${ruleKey}`);
  }
}

/**
 * A change creates the next config version (rules copied) and makes it the active one; old
 * versions stay, so every score keeps pointing at the version that made it. Concurrent changes of
 * one organization take turns (a transaction-scoped advisory lock), so each reads the version the
 * previous one committed and writes the next: none fails on the version number.
 */
export async function changeScoringConfig(tx: Tx, organizationId: string, actorId: string, patch: ScoringPatch, rulePatches: RulePatch[] = []) {
  await lockFor(tx, `scoring_configs:${organizationId}`);
  const active = await activeScoringConfig(tx, organizationId);
  if (!active) throw new Error('organization has no scoring config');
  const current = active.config;
  const byKey = new Map(active.rules.map((r) => [r.rule_key, r]));
  rulePatches.forEach((p, i) => {
    if (!byKey.has(p.ruleKey)) throw new UnknownRuleError(i, p.ruleKey);
  });
  const ruleChanges = rulePatches.flatMap((p) => {
    const rule = byKey.get(p.ruleKey)!;
    return diff({ weight: Number(rule.weight), max_points: Number(rule.max_points) }, { weight: p.weight, max_points: p.maxPoints }).map((c) => ({
      ...c,
      field: `rules.${p.ruleKey}.${c.field}`,
    }));
  });
  const patched = new Map(rulePatches.map((p) => [p.ruleKey, p]));
  const next = {
    ignore_below: patch.ignore_below ?? current.ignore_below,
    qualify_at: patch.qualify_at ?? current.qualify_at,
    opportunity_at: patch.opportunity_at ?? current.opportunity_at,
    home_lat: patch.home_lat !== undefined ? patch.home_lat : current.home_lat,
    home_lng: patch.home_lng !== undefined ? patch.home_lng : current.home_lng,
  };
  if (!(next.ignore_below <= next.qualify_at && next.qualify_at <= next.opportunity_at)) {
    throw new ThresholdOrderError(
      `thresholds must keep ignoreBelow <= qualifyAt <= opportunityAt (got ${next.ignore_below}, ${next.qualify_at}, ${next.opportunity_at})`,
    );
  }
  const changes = [...diff(current as unknown as Record<string, unknown>, patch), ...ruleChanges];
  if (changes.length === 0) return scoringSettings(tx, organizationId);
  await tx
    .updateTable('scoring_configs')
    .set({ is_active: false, updated_at: sql`now()` })
    .where('id', '=', current.id)
    .execute();
  const created = await tx
    .insertInto('scoring_configs')
    .values({ organization_id: organizationId, version: current.version + 1, is_active: true, created_by: actorId, ...next })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('scoring_rules')
    .values(
      active.rules.map((r) => ({
        organization_id: organizationId,
        scoring_config_id: created.id,
        dimension: r.dimension,
        rule_key: r.rule_key,
        weight: patched.get(r.rule_key)?.weight ?? r.weight,
        max_points: patched.get(r.rule_key)?.maxPoints ?? r.max_points,
        params: JSON.stringify(r.params),
      })),
    )
    .execute();
  await writeAudit(tx, { organizationId, actorId, entity: 'scoring_config', entityId: created.id, action: 'update', changes });
  return scoringSettings(tx, organizationId);
}

const PROFILE_COLUMNS = ['id', 'organization_id', 'key', 'name', 'description', 'proposition_text', 'created_at', 'updated_at'] as const;

export async function industryProfileSettings(tx: Tx, organizationId: string) {
  const profile = await tx.selectFrom('industry_profiles').select(PROFILE_COLUMNS).where('organization_id', '=', organizationId).executeTakeFirst();
  if (!profile) return undefined;
  const [personas, products] = await Promise.all([
    tx
      .selectFrom('personas')
      .select(['id', 'industry_profile_id', 'segment', 'title_keywords', 'priority'])
      .where('industry_profile_id', '=', profile.id)
      .orderBy('priority', 'desc')
      .orderBy('segment')
      .execute(),
    tx
      .selectFrom('products')
      .select(['id', 'industry_profile_id', 'key', 'name', 'description', 'fit_keywords'])
      .where('industry_profile_id', '=', profile.id)
      .orderBy('key')
      .execute(),
  ]);
  return { profile, personas, products };
}

export interface IndustryProfilePatch {
  key?: string;
  name?: string;
  description?: string | null;
  proposition_text?: string | null;
  personas?: Array<{ segment: string; titleKeywords: string[]; priority: number }>;
  products?: Array<{ key: string; name: string; description?: string | null; fitKeywords: string[] }>;
}

/** Display fields change in place; a given persona or product list replaces the old one. Audited. */
export async function changeIndustryProfile(tx: Tx, organizationId: string, actorId: string, patch: IndustryProfilePatch) {
  const current = await industryProfile(tx, organizationId);
  if (!current) throw new Error('organization has no industry profile');
  const { personas, products, ...fields } = patch;
  const changes = diff(current.profile as unknown as Record<string, unknown>, fields);
  if (Object.keys(fields).length) {
    await tx
      .updateTable('industry_profiles')
      .set({ ...fields, updated_at: sql`now()` })
      .where('id', '=', current.profile.id)
      .execute();
  }
  const profileId = current.profile.id;
  if (personas) {
    changes.push({ field: 'personas', before: current.personas.map((p) => p.segment), after: personas.map((p) => p.segment) });
    await tx.deleteFrom('personas').where('industry_profile_id', '=', profileId).execute();
    if (personas.length) {
      await tx
        .insertInto('personas')
        .values(
          personas.map((p) => ({
            organization_id: organizationId,
            industry_profile_id: profileId,
            segment: p.segment,
            title_keywords: p.titleKeywords,
            priority: p.priority,
          })),
        )
        .execute();
    }
  }
  if (products) {
    changes.push({ field: 'products', before: current.products.map((p) => p.key), after: products.map((p) => p.key) });
    await tx.deleteFrom('products').where('industry_profile_id', '=', profileId).execute();
    if (products.length) {
      await tx
        .insertInto('products')
        .values(
          products.map((p) => ({
            organization_id: organizationId,
            industry_profile_id: profileId,
            key: p.key,
            name: p.name,
            description: p.description ?? null,
            fit_keywords: p.fitKeywords,
          })),
        )
        .execute();
    }
  }
  if (changes.length) await writeAudit(tx, { organizationId, actorId, entity: 'industry_profile', entityId: profileId, action: 'update', changes });
  return industryProfileSettings(tx, organizationId);
}

/** Whether AI assistants (MCP tools) may do a person's acts: accept a proposal, approve a draft. */
export function mcpSettings(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('organizations')
    .select(['id as organization_id', 'mcp_allow_approve as allow_approve'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
}

/** Changes it, audited (entity mcp_settings). */
export async function changeMcpSettings(tx: Tx, organizationId: string, actorId: string | null, change: { allowApprove: boolean }) {
  const before = await mcpSettings(tx, organizationId);
  if (!before) return undefined;
  await tx
    .updateTable('organizations')
    .set({ mcp_allow_approve: change.allowApprove, updated_at: sql`now()` })
    .where('id', '=', organizationId)
    .execute();
  if (before.allow_approve !== change.allowApprove)
    await writeAudit(tx, {
      organizationId,
      actorId,
      entity: 'mcp_settings',
      entityId: organizationId,
      action: 'update',
      changes: [{ field: 'allow_approve', before: before.allow_approve, after: change.allowApprove }],
    });
  return mcpSettings(tx, organizationId);
}

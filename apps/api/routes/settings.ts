import { Router } from 'express';
import {
  changeIndustryProfile,
  changeScoringConfig,
  industryProfileSettings,
  scoringSettings,
  changeMcpSettings,
  mcpSettings,
  ThresholdOrderError,
  UnknownRuleError,
} from '../../../db/queries/settings';
import { changeMeetingSettings, meetingSettings, upcomingMeetingIds } from '../../../db/queries/meetings';
import { scoringSuggestions } from '../../../db/queries/scoring-suggestions';
import { changeEnrichmentSettings, enrichmentSettings, NotEnrichmentIntegrationError } from '../../../db/queries/enrichment';
import { userOf, withRole } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './settings.schemas';

/** Scoring and industry-profile settings: read by any member, changed by owners and admins, audited. */
export function settingsRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('getScoringSettings', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => scoringSettings(tx, q.organizationId));
    if (!settings) throw notFound('scoring settings');
    res.json(settings);
  });

  serve('updateScoringSettings', async (req, res, call) => {
    const body = call.body;
    const settings = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      try {
        return await changeScoringConfig(
          tx,
          body.organizationId,
          userOf(req),
          {
            ignore_below: body.ignoreBelow,
            qualify_at: body.qualifyAt,
            opportunity_at: body.opportunityAt,
            home_lat: body.homeLat,
            home_lng: body.homeLng,
          },
          body.rules,
        );
      } catch (err) {
        if (err instanceof ThresholdOrderError) throw validationFailed([{ path: 'body', message: err.message }]);
        if (err instanceof UnknownRuleError) throw validationFailed([{ path: `body.rules.${err.index}.ruleKey`, message: err.message }]);
        throw err;
      }
    });
    res.json(settings);
  });

  // The learning loop: what outcomes suggest for each rule's weight. Reads only; PATCH above applies.
  serve('getScoringSuggestions', async (req, res, call) => {
    const q = call.query;
    const suggestions = await withRole(db, req, q.organizationId, call.role, (tx) => scoringSuggestions(tx, q.organizationId, q.window));
    if (!suggestions) throw notFound('scoring settings');
    res.json(suggestions);
  });

  serve('getIndustryProfile', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => industryProfileSettings(tx, q.organizationId));
    if (!settings) throw notFound('industry profile');
    res.json(settings);
  });

  serve('updateIndustryProfile', async (req, res, call) => {
    const body = call.body;
    const settings = await withRole(db, req, body.organizationId, call.role, (tx) =>
      changeIndustryProfile(tx, body.organizationId, userOf(req), {
        key: body.key,
        name: body.name,
        description: body.description,
        proposition_text: body.propositionText,
        personas: body.personas,
        products: body.products,
      }),
    );
    res.json(settings);
  });

  /** Meeting settings: the reminder's lead time (default 24 hours). */
  serve('getMeetingSettings', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => meetingSettings(tx, q.organizationId));
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  /** A new lead time moves the reminders still to come: their workflows are woken to read it. */
  serve('updateMeetingSettings', async (req, res, call) => {
    const body = call.body;
    const { settings, upcoming } = await withRole(db, req, body.organizationId, call.role, async (tx) => ({
      settings: await changeMeetingSettings(tx, body.organizationId, { reminderLeadMinutes: body.reminderLeadMinutes }),
      upcoming: body.reminderLeadMinutes === undefined ? [] : await upcomingMeetingIds(tx, body.organizationId),
    }));
    if (!settings) throw notFound('organization');
    await Promise.all(upcoming.map((m) => workflows.wakeMeeting({ ...m, organization_id: body.organizationId })));
    res.json(settings);
  });

  serve('getMcpSettings', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => mcpSettings(tx, q.organizationId));
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  serve('updateMcpSettings', async (req, res, call) => {
    const body = call.body;
    const settings = await withRole(db, req, body.organizationId, call.role, (tx) =>
      changeMcpSettings(tx, body.organizationId, userOf(req), { allowApprove: body.allowApprove }),
    );
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  serve('getEnrichmentSettings', async (req, res, call) => {
    const q = call.query;
    const settings = await withRole(db, req, q.organizationId, call.role, (tx) => enrichmentSettings(tx, q.organizationId));
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  serve('updateEnrichmentSettings', async (req, res, call) => {
    const body = call.body;
    const settings = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      try {
        return await changeEnrichmentSettings(tx, body.organizationId, userOf(req), { order: body.order, stopAt: body.stopAt });
      } catch (err) {
        if (err instanceof NotEnrichmentIntegrationError) throw validationFailed([{ path: `body.order.${err.index}`, message: err.message }]);
        throw err;
      }
    });
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  return r;
}

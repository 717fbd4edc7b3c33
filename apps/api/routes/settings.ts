import { Router } from 'express';
import { changeIndustryProfile, changeScoringConfig, industryProfileSettings, scoringSettings, ThresholdOrderError, UnknownRuleError } from '../../../db/queries/settings';
import { changeMeetingSettings, meetingSettings, upcomingMeetingIds } from '../../../db/queries/meetings';
import { scoringSuggestions } from '../../../db/queries/scoring-suggestions';
import { userOf, withRole } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { organizationQuery, patchIndustryProfileBody, patchMeetingSettingsBody, patchScoringBody, scoringSuggestionsQuery } from '../schemas';
import { parseBody, parseQuery } from '../validate';

/** Scoring and industry-profile settings: read by any member, changed by owners and admins, audited. */
export function settingsRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.get('/settings/scoring', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    const settings = await withRole(db, req, q.organizationId, 'viewer', (tx) => scoringSettings(tx, q.organizationId));
    if (!settings) throw notFound('scoring settings');
    res.json(settings);
  });

  r.patch('/settings/scoring', async (req, res) => {
    const body = parseBody(patchScoringBody, req);
    const settings = await withRole(db, req, body.organizationId, 'admin', async (tx) => {
      try {
        return await changeScoringConfig(tx, body.organizationId, userOf(req), {
          ignore_below: body.ignoreBelow,
          qualify_at: body.qualifyAt,
          opportunity_at: body.opportunityAt,
          home_lat: body.homeLat,
          home_lng: body.homeLng,
        }, body.rules);
      } catch (err) {
        if (err instanceof ThresholdOrderError) throw validationFailed([{ path: 'body', message: err.message }]);
        if (err instanceof UnknownRuleError) throw validationFailed([{ path: `body.rules.${err.index}.ruleKey`, message: err.message }]);
        throw err;
      }
    });
    res.json(settings);
  });

  // The learning loop: what outcomes suggest for each rule's weight. Reads only; PATCH above applies.
  r.get('/settings/scoring/suggestions', async (req, res) => {
    const q = parseQuery(scoringSuggestionsQuery, req);
    const suggestions = await withRole(db, req, q.organizationId, 'viewer', (tx) => scoringSuggestions(tx, q.organizationId, q.window));
    if (!suggestions) throw notFound('scoring settings');
    res.json(suggestions);
  });

  r.get('/settings/industry-profile', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    const settings = await withRole(db, req, q.organizationId, 'viewer', (tx) => industryProfileSettings(tx, q.organizationId));
    if (!settings) throw notFound('industry profile');
    res.json(settings);
  });

  r.patch('/settings/industry-profile', async (req, res) => {
    const body = parseBody(patchIndustryProfileBody, req);
    const settings = await withRole(db, req, body.organizationId, 'admin', (tx) => changeIndustryProfile(tx, body.organizationId, userOf(req), {
        key: body.key,
        name: body.name,
        description: body.description,
        proposition_text: body.propositionText,
        personas: body.personas,
        products: body.products,
      }));
    res.json(settings);
  });

  /** Meeting settings: the reminder's lead time (default 24 hours). */
  r.get('/settings/meetings', async (req, res) => {
    const q = parseQuery(organizationQuery, req);
    const settings = await withRole(db, req, q.organizationId, 'viewer', (tx) => meetingSettings(tx, q.organizationId));
    if (!settings) throw notFound('organization');
    res.json(settings);
  });

  /** A new lead time moves the reminders still to come: their workflows are woken to read it. */
  r.patch('/settings/meetings', async (req, res) => {
    const body = parseBody(patchMeetingSettingsBody, req);
    const { settings, upcoming } = await withRole(db, req, body.organizationId, 'admin', async (tx) => ({
      settings: await changeMeetingSettings(tx, body.organizationId, { reminderLeadMinutes: body.reminderLeadMinutes }),
      upcoming: body.reminderLeadMinutes === undefined ? [] : await upcomingMeetingIds(tx, body.organizationId),
    }));
    if (!settings) throw notFound('organization');
    await Promise.all(upcoming.map((m) => workflows.wakeMeeting({ ...m, organization_id: body.organizationId })));
    res.json(settings);
  });

  return r;
}

import { Router } from 'express';
import {
  firstSendableMailbox, getCampaign, insertCampaign, listCampaigns, lockCampaign, mailboxOf, markOpportunityInOutreach, opportunityOf, transitionCampaign,
} from '../../../db/queries/campaigns';
import { complianceGate } from '../../../db/queries/compliance';
import { contactsForEnrollment, insertEnrollment } from '../../../db/queries/enrollments';
import type { Tx } from '../../../db/tenancy';
import {
  CAMPAIGN_TRANSITIONS, contactChannels, enrollmentDecision, type SkipReason, type StepChannel,
} from '../../../domain/outreach/enrollments';
import { userOf, visibleOr404, withRecordRole, withRole, WRITE } from '../access';
import { conflict, notFound } from '../errors';
import type { ApiDeps } from '../app';
import { acceptCampaignBody, createCampaignBody, dismissCampaignBody, listCampaignsQuery } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

type CampaignRecord = NonNullable<Awaited<ReturnType<typeof getCampaign>>>;

export interface AcceptResult {
  enrolled: Array<{ enrollmentId: string; contactId: string }>;
  skipped: Array<{ contactId: string; reason: SkipReason }>;
}

/** Every given contact must be the organization's (another tenant's, or none: 404). */
async function requireContacts(tx: Tx, organizationId: string, ids: string[]) {
  const rows = await contactsForEnrollment(tx, organizationId, ids);
  if (rows.length !== new Set(ids).size) throw notFound('contact');
  return rows;
}

/**
 * Enrolls the contacts in an accepted campaign, each decided by the compliance gate: the gate's own
 * reasons (erased, suppressed, no_lawful_basis, no_allowed_channel), or no step that can reach them
 * (no_email, channel_not_allowed); domain/outreach/enrollments.ts decides, this loads and writes.
 * already_enrolled is the database's answer, not a check in code: the insert does nothing when the
 * contact is in this campaign already, or the contact or the address its e-mail steps go to (a
 * company's generic inbox shared by several people) is in another running enrollment, a concurrent
 * accept's included (unique (campaign_id, contact_id) and 0016's partial unique indexes).
 */
async function enroll(tx: Tx, campaign: CampaignRecord, contactIds: string[]): Promise<AcceptResult> {
  const result: AcceptResult = { enrolled: [], skipped: [] };
  const contacts = await requireContacts(tx, campaign.organization_id, contactIds);
  const stepChannels = [...new Set(campaign.steps.map((s) => s.channel as StepChannel))];
  for (const contactId of contactIds) {
    const contact = contacts.find((c) => c.id === contactId)!;
    const gate = await complianceGate(tx, contactId);
    if (!gate) throw notFound('contact');
    const channels = contactChannels(gate, contact, { generic_email: contact.generic_email, phone: contact.company_phone });
    const decision = enrollmentDecision(gate, channels, stepChannels);
    if (!decision.enroll) {
      result.skipped.push({ contactId, reason: decision.reason });
      continue;
    }
    const routeAddress = stepChannels.includes('email') ? (channels.email === 'personal' ? contact.email : channels.email === 'generic' ? contact.generic_email : null) : null;
    const row = { organizationId: campaign.organization_id, campaignId: campaign.id, sequenceId: campaign.sequence_id!, contactId };
    let enrollment = await insertEnrollment(tx, { ...row, routeAddress });
    // The address is another running enrollment's (a company's generic inbox, one cold e-mail per
    // company): enrolled for the steps that reach the contact otherwise, its e-mail steps skipped
    // (prepareDraft); with e-mail steps only, not at all.
    if (!enrollment && routeAddress && stepChannels.some((c) => c !== 'email' && channels.usable.includes(c))) {
      enrollment = await insertEnrollment(tx, { ...row, routeAddress: null });
    }
    if (enrollment) result.enrolled.push({ enrollmentId: enrollment.id, contactId });
    else result.skipped.push({ contactId, reason: 'already_enrolled' });
  }
  return result;
}

export function campaignRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const loader = (id: string) => ({ what: 'campaign', load: (tx: Tx) => getCampaign(tx, id) });

  /** A person's campaign: proposed, proposed_by user; its steps are its sequence. */
  r.post('/campaigns', async (req, res) => {
    const body = parseBody(createCampaignBody, req);
    const campaign = await withRole(db, req, body.organizationId, WRITE, async (tx) => {
      if (body.opportunityId && !(await opportunityOf(tx, body.organizationId, body.opportunityId))) throw notFound('opportunity');
      if (body.mailboxId && !(await mailboxOf(tx, body.organizationId, body.mailboxId))) throw notFound('mailbox');
      if (body.contactIds) await requireContacts(tx, body.organizationId, body.contactIds);
      const stored = await insertCampaign(tx, {
        organizationId: body.organizationId,
        name: body.name,
        proposedBy: 'user',
        opportunityId: body.opportunityId,
        mailboxId: body.mailboxId,
        mode: body.mode,
        goal: body.goal,
        brief: body.brief,
        countryCode: body.countryCode,
        personaKeys: body.personaKeys,
        productKeys: body.productKeys,
        minScore: body.minScore,
        suggestedContactIds: body.contactIds,
        createdBy: userOf(req),
        steps: body.steps,
      });
      if (!stored.created) throw conflict('The opportunity already has a live proposal; accept or dismiss it first', { campaign_id: stored.existing });
      return (await getCampaign(tx, stored.id))!;
    });
    res.status(201).json(campaign);
  });

  r.get('/campaigns', async (req, res) => {
    const q = parseQuery(listCampaignsQuery, req);
    res.json(await withRole(db, req, q.organizationId, 'viewer', (tx) => listCampaigns(tx, q)));
  });

  r.get('/campaigns/:campaignId', async (req, res) => {
    const id = pathId(req, 'campaignId', 'campaign');
    res.json(await visibleOr404(db, req, 'campaign', (tx) => getCampaign(tx, id)));
  });

  /** Enrolls the proposal's (or the given) contacts; the campaign becomes active, its opportunity in_outreach. */
  r.post('/campaigns/:campaignId/accept', async (req, res) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = parseBody(acceptCampaignBody, req);
    const answer = await withRecordRole(db, req, loader(id), WRITE, async (tx, campaign) => {
      const locked = await lockCampaign(tx, id);
      if (locked?.status !== 'proposed') throw conflict(`The campaign is ${locked?.status ?? 'gone'}; only a proposed campaign can be accepted`);
      if (body.mailboxId && !(await mailboxOf(tx, campaign.organization_id, body.mailboxId))) throw notFound('mailbox');
      // E-mail steps need a mailbox: the given one, the campaign's, else the organization's first sendable one.
      const mailboxId = body.mailboxId ?? campaign.mailbox_id ?? (await firstSendableMailbox(tx, campaign.organization_id))?.id ?? null;
      // Without one its e-mails would wait for good (a message's mailbox is fixed when it is drafted).
      if (!mailboxId && campaign.steps.some((s) => s.channel === 'email')) {
        throw conflict('The campaign has e-mail steps and the organization has no sendable mailbox; give one (mailboxId) or add a mailbox first');
      }
      const result = await enroll(tx, campaign, body.contactIds ?? campaign.suggested_contact_ids);
      await transitionCampaign(tx, id, 'accept', CAMPAIGN_TRANSITIONS.accept.to, {
        ...(mailboxId ? { mailbox_id: mailboxId } : {}),
        ...(body.mode ? { mode: body.mode } : {}),
      });
      if (campaign.opportunity_id && result.enrolled.length > 0) await markOpportunityInOutreach(tx, campaign.opportunity_id);
      return { campaign: (await getCampaign(tx, id))!, result };
    });
    // Committed: each enrollment's sequence starts. A start that fails (Temporal unreachable) is logged,
    // not answered as an error: the enrollments are stored, and the scheduled reconcile/outreach starts
    // their runs where they stand.
    const c = answer.campaign;
    await Promise.all(
      answer.result.enrolled.map((e) =>
        workflows
          .startSequence({ organizationId: c.organization_id, enrollmentId: e.enrollmentId, campaignId: c.id, opportunityId: c.opportunity_id, mailboxId: c.mailbox_id })
          .catch((err) => req.log?.warn({ err, enrollmentId: e.enrollmentId }, 'sequence start failed; reconcile/outreach will start it')),
      ),
    );
    res.json(answer);
  });

  /** archived; nobody is contacted, and the strategist may propose again for the opportunity. */
  r.post('/campaigns/:campaignId/dismiss', async (req, res) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = parseBody(dismissCampaignBody, req);
    const campaign = await withRecordRole(db, req, loader(id), WRITE, async (tx, existing) => {
      const moved = await transitionCampaign(tx, id, 'dismiss', CAMPAIGN_TRANSITIONS.dismiss.to, { dismissed_reason: body.reason ?? null });
      if (!moved) throw conflict(`The campaign is ${existing.status}; only a proposed campaign can be dismissed`);
      return (await getCampaign(tx, id))!;
    });
    res.json(campaign);
  });

  return r;
}

import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import {
  addSuggestedContacts,
  firstSendableMailbox,
  lockContactsForEnrollment,
  getCampaign,
  insertCampaign,
  listCampaigns,
  lockCampaign,
  mailboxesOf,
  markOpportunityInOutreach,
  opportunityOf,
  setCampaignPool,
  transitionCampaign,
  updateCampaign,
} from '../../../db/queries/campaigns';
import { complianceGates } from '../../../db/queries/compliance';
import { contactsForEnrollment, insertEnrollments } from '../../../db/queries/enrollments';
import type { Tx } from '../../../db/tenancy';
import { checkIsStale, type EmailStatus } from '../../../domain/contacts/email-verification';
import { CAMPAIGN_TRANSITIONS, contactChannels, enrollmentDecision, type SkipReason, type StepChannel } from '../../../domain/outreach/enrollments';
import { userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { conflict, notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './campaigns.schemas';
import { pathId } from '../validate';

type CampaignRecord = NonNullable<Awaited<ReturnType<typeof getCampaign>>>;

export interface AcceptResult {
  enrolled: Array<{ enrollmentId: string; contactId: string }>;
  skipped: Array<{ contactId: string; reason: SkipReason }>;
}

/** What enroll decided, and the enrolled contacts whose address is checked again (never checked, or too long ago). */
interface Enrolment {
  result: AcceptResult;
  recheck: string[];
}

/** Every given contact must be the organization's (another tenant's, or none: 404). */
async function requireContacts(tx: Tx, organizationId: string, ids: string[]) {
  const rows = await contactsForEnrollment(tx, organizationId, ids);
  if (rows.length !== new Set(ids).size) throw notFound('contact');
  return rows;
}

/** Every mailbox of a pool must be the organization's (another tenant's, or none: 404). */
async function requireMailboxes(tx: Tx, organizationId: string, ids: string[]) {
  if ((await mailboxesOf(tx, organizationId, ids)).length !== ids.length) throw notFound('mailbox');
}

/**
 * The pool a body names: `mailboxIds`, or `mailboxId` alone as a pool of one; both only when
 * mailboxId is the pool's first (it is the campaign's mailbox_id), else 400 naming mailboxId.
 */
function poolOf(body: { mailboxId?: string; mailboxIds?: string[] }): string[] | undefined {
  if (body.mailboxIds && body.mailboxId && body.mailboxIds[0] !== body.mailboxId) {
    throw validationFailed([{ path: 'body.mailboxId', message: "must be the pool's first mailbox (mailboxIds[0]) when both are given" }]);
  }
  return body.mailboxIds ?? (body.mailboxId ? [body.mailboxId] : undefined);
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
async function enroll(tx: Tx, campaign: CampaignRecord, contactIds: string[], allowRisky = campaign.allow_risky): Promise<Enrolment> {
  const contacts = new Map((await requireContacts(tx, campaign.organization_id, contactIds)).map((c) => [c.id, c]));
  const stepChannels = [...new Set(campaign.steps.map((s) => s.channel as StepChannel))];
  // Concurrent accepts sharing contacts take turns per contact, in id order, so they never deadlock
  // on the enrollments unique indexes (each would wait on the other's uncommitted insert).
  await lockContactsForEnrollment(tx, contactIds);
  // One set of queries for every contact (an accept carries thousands), then one insert per 1,000.
  const gates = await complianceGates(tx, campaign.organization_id, contactIds);
  const skipped = new Map<string, SkipReason>();
  const wanted: Array<{ contactId: string; routeAddress: string | null; fallback: boolean }> = [];
  for (const contactId of contactIds) {
    const contact = contacts.get(contactId)!;
    const gate = gates.get(contactId);
    if (!gate) throw notFound('contact');
    const channels = contactChannels(gate, contact, { generic_email: contact.generic_email, phone: contact.company_phone });
    const decision = enrollmentDecision(gate, channels, stepChannels, { status: contact.email_status as EmailStatus, allowRisky });
    if (!decision.enroll) {
      skipped.set(contactId, decision.reason);
      continue;
    }
    const routeAddress = stepChannels.includes('email')
      ? channels.email === 'personal'
        ? contact.email
        : channels.email === 'generic'
          ? contact.generic_email
          : null
      : null;
    // The address is another running enrollment's (a company's generic inbox, one cold e-mail per
    // company): enrolled for the steps that reach the contact otherwise, its e-mail steps skipped
    // (prepareDraft); with e-mail steps only, not at all.
    wanted.push({ contactId, routeAddress, fallback: !!routeAddress && stepChannels.some((c) => c !== 'email' && channels.usable.includes(c)) });
  }
  const row = (contactId: string, routeAddress: string | null) => ({
    organizationId: campaign.organization_id,
    campaignId: campaign.id,
    sequenceId: campaign.sequence_id!,
    contactId,
    routeAddress,
  });
  const enrolled = await insertEnrollments(
    tx,
    wanted.map((w) => row(w.contactId, w.routeAddress)),
  );
  const again = await insertEnrollments(
    tx,
    wanted.filter((w) => w.fallback && !enrolled.has(w.contactId)).map((w) => row(w.contactId, null)),
  );
  const result: AcceptResult = { enrolled: [], skipped: [] };
  const recheck: string[] = [];
  const now = new Date();
  for (const contactId of contactIds) {
    const reason = skipped.get(contactId);
    const enrollmentId = enrolled.get(contactId) ?? again.get(contactId);
    if (reason) result.skipped.push({ contactId, reason });
    else if (enrollmentId) {
      result.enrolled.push({ enrollmentId, contactId });
      const c = contacts.get(contactId)!;
      if (c.email && checkIsStale(c.email_checked_at, now)) recheck.push(contactId);
    } else result.skipped.push({ contactId, reason: 'already_enrolled' });
  }
  return { result, recheck };
}

export function campaignRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'campaign', load: (tx: Tx) => getCampaign(tx, id) });

  // Committed: each enrollment's sequence starts. A start that fails (Temporal unreachable) is logged,
  // not answered as an error: the enrollments are stored, and the scheduled reconcile/outreach starts
  // their runs where they stand.
  const startSequences = (req: Request, { campaign: c, result }: { campaign: CampaignRecord; result: AcceptResult }) =>
    workflows.startSequences(
      result.enrolled.map((e) => ({
        organizationId: c.organization_id,
        enrollmentId: e.enrollmentId,
        campaignId: c.id,
        opportunityId: c.opportunity_id,
        mailboxId: c.mailbox_id,
      })),
      (err, enrollmentId) => req.log?.warn({ err, enrollmentId }, 'sequence start failed; reconcile/outreach will start it'),
    );

  // Committed: addresses never checked, or checked too long ago, are checked again. A start that fails
  // is logged: the send re-reads the address's status before each first e-mail.
  const recheckAddresses = async (req: Request, { campaign: c, recheck }: { campaign: CampaignRecord; recheck: string[] }) => {
    if (recheck.length === 0) return;
    await workflows
      .startContactsVerification(c.organization_id, randomUUID(), { contactIds: recheck })
      .catch((err: unknown) => req.log?.warn({ err, campaignId: c.id }, 'address re-check could not start'));
  };

  /** A person's campaign: proposed, proposed_by user; its steps are its sequence. */
  serve('createCampaign', async (req, res, call) => {
    const body = call.body;
    const pool = poolOf(body);
    const campaign = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      if (body.opportunityId && !(await opportunityOf(tx, body.organizationId, body.opportunityId))) throw notFound('opportunity');
      if (pool) await requireMailboxes(tx, body.organizationId, pool);
      if (body.contactIds) await requireContacts(tx, body.organizationId, body.contactIds);
      const stored = await insertCampaign(tx, {
        organizationId: body.organizationId,
        name: body.name,
        proposedBy: 'user',
        opportunityId: body.opportunityId,
        mailboxIds: pool,
        mode: body.mode,
        sendIn: body.sendIn,
        allowRisky: body.allowRisky,
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

  serve('listCampaigns', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => listCampaigns(tx, q)));
  });

  serve('getCampaign', async (req, res) => {
    const id = pathId(req, 'campaignId', 'campaign');
    res.json(await visibleOr404(db, req, 'campaign', (tx) => getCampaign(tx, id)));
  });

  /** Enrolls the proposal's (or the given) contacts; the campaign becomes active, its opportunity in_outreach. */
  serve('acceptCampaign', async (req, res, call) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = call.body;
    const pool = poolOf(body);
    const answer = await withRecordRole(db, req, loader(id), call.role, async (tx, campaign) => {
      const locked = await lockCampaign(tx, id);
      if (locked?.status !== 'proposed') throw conflict(`The campaign is ${locked?.status ?? 'gone'}; only a proposed campaign can be accepted`);
      if (pool) await requireMailboxes(tx, campaign.organization_id, pool);
      // E-mail steps need a mailbox: the given pool, the campaign's, else the organization's first sendable one (a pool of one).
      const mailboxId = pool?.[0] ?? campaign.mailbox_id ?? (await firstSendableMailbox(tx, campaign.organization_id))?.id ?? null;
      // Without one its e-mails would wait for good (a message's mailbox is fixed when it is drafted).
      if (!mailboxId && campaign.steps.some((s) => s.channel === 'email')) {
        throw conflict('The campaign has e-mail steps and the organization has no sendable mailbox; give one (mailboxId) or add a mailbox first');
      }
      const { result, recheck } = await enroll(tx, campaign, body.contactIds ?? campaign.suggested_contact_ids, body.allowRisky ?? campaign.allow_risky);
      // sendIn and allowRisky: the body's, else the proposal's (the strategist's proposal, or the person's).
      await transitionCampaign(tx, id, 'accept', CAMPAIGN_TRANSITIONS.accept.to, {
        ...(body.mode ? { mode: body.mode } : {}),
        ...(body.sendIn ? { send_in: body.sendIn } : {}),
        ...(body.allowRisky !== undefined ? { allow_risky: body.allowRisky } : {}),
      });
      if (pool) await setCampaignPool(tx, campaign.organization_id, id, pool);
      else if (mailboxId && campaign.mailbox_ids.length === 0) await setCampaignPool(tx, campaign.organization_id, id, [mailboxId]);
      if (campaign.opportunity_id && result.enrolled.length > 0) await markOpportunityInOutreach(tx, campaign.opportunity_id);
      return { campaign: (await getCampaign(tx, id))!, result, recheck };
    });
    await startSequences(req, answer);
    await recheckAddresses(req, answer);
    res.json({ campaign: answer.campaign, result: answer.result });
  });

  /** Name, mode, sendIn, allowRisky and the pool; a pool can grow or shrink while the campaign runs (not once archived). */
  serve('patchCampaign', async (req, res, call) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = call.body;
    const campaign = await withRecordRole(db, req, loader(id), call.role, async (tx, existing) => {
      const locked = await lockCampaign(tx, id);
      if (!locked || locked.status === 'archived') throw conflict(`The campaign is ${locked?.status ?? 'gone'}; an archived campaign cannot change`);
      if (body.mailboxIds) {
        await requireMailboxes(tx, existing.organization_id, body.mailboxIds);
        await setCampaignPool(tx, existing.organization_id, id, body.mailboxIds);
      }
      if (body.name !== undefined || body.mode !== undefined || body.sendIn !== undefined || body.allowRisky !== undefined)
        await updateCampaign(tx, id, { name: body.name, mode: body.mode, send_in: body.sendIn, allow_risky: body.allowRisky });
      return (await getCampaign(tx, id))!;
    });
    res.json(campaign);
  });

  /**
   * More contacts than one accept carries: a proposal's suggested contacts grow; an active campaign
   * enrolls them at once, on accept's path (the gate decides, {enrolled, skipped}).
   */
  serve('addCampaignContacts', async (req, res, call) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = call.body;
    const answer = await withRecordRole(db, req, loader(id), call.role, async (tx, campaign) => {
      const locked = await lockCampaign(tx, id);
      let enrolment: Enrolment = { result: { enrolled: [], skipped: [] }, recheck: [] };
      if (locked?.status === 'proposed') {
        await requireContacts(tx, campaign.organization_id, body.contactIds);
        await addSuggestedContacts(tx, id, body.contactIds);
      } else if (locked?.status === 'active') {
        if (!campaign.mailbox_id && campaign.steps.some((s) => s.channel === 'email'))
          throw conflict('The campaign has e-mail steps and no mailbox; give it a pool first (PATCH mailboxIds)');
        enrolment = await enroll(tx, campaign, body.contactIds);
        if (campaign.opportunity_id && enrolment.result.enrolled.length > 0) await markOpportunityInOutreach(tx, campaign.opportunity_id);
      } else {
        throw conflict(`The campaign is ${locked?.status ?? 'gone'}; contacts join a proposed or active campaign only`);
      }
      return { campaign: (await getCampaign(tx, id))!, ...enrolment };
    });
    await startSequences(req, answer);
    await recheckAddresses(req, answer);
    res.json({ campaign: answer.campaign, result: answer.result });
  });

  /** archived; nobody is contacted, and the strategist may propose again for the opportunity. */
  serve('dismissCampaign', async (req, res, call) => {
    const id = pathId(req, 'campaignId', 'campaign');
    const body = call.body;
    const campaign = await withRecordRole(db, req, loader(id), call.role, async (tx, existing) => {
      const moved = await transitionCampaign(tx, id, 'dismiss', CAMPAIGN_TRANSITIONS.dismiss.to, { dismissed_reason: body.reason ?? null });
      if (!moved) throw conflict(`The campaign is ${existing.status}; only a proposed campaign can be dismissed`);
      return (await getCampaign(tx, id))!;
    });
    res.json(campaign);
  });

  return r;
}

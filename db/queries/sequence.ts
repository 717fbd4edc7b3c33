import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { ENROLLMENT_COLUMNS } from './enrollments';
import { getMessage } from './messages';
import { recordEvent } from './webhook-events';

/**
 * What an enrollment's sequence run reads and writes besides the enrollment's status (enrollments.ts)
 * and the send (sending.ts): the enrollment with its campaign and steps, the context a step's draft
 * is written from, and the draft itself, stored once per (enrollment, step, attempt).
 */

/**
 * The enrollment, its campaign's mode and mailbox, and the campaign's steps in order. The campaign's
 * mailbox is answered under its own name: `mailbox_id` is the enrollment's pin (null before its first
 * e-mail was booked), and `sender_mailbox_id` the mailbox its e-mails are written and planned for: the
 * pin, else the campaign's (its pool's first).
 */
export async function sequenceOf(tx: Tx, enrollmentId: string) {
  const enrollment = await tx
    .selectFrom('enrollments')
    .innerJoin('campaigns', 'campaigns.id', 'enrollments.campaign_id')
    .select(ENROLLMENT_COLUMNS.map((c) => `enrollments.${c}` as const))
    .select([
      'enrollments.sequence_id',
      'campaigns.mode',
      'campaigns.mailbox_id as campaign_mailbox_id',
      'campaigns.opportunity_id',
      'campaigns.name as campaign_name',
      'campaigns.goal',
    ])
    .select(sql<string | null>`coalesce(enrollments.mailbox_id, campaigns.mailbox_id)`.as('sender_mailbox_id'))
    .where('enrollments.id', '=', enrollmentId)
    .executeTakeFirst();
  if (!enrollment) return undefined;
  const steps = await tx
    .selectFrom('sequence_steps')
    .select(['id', 'position', 'channel', 'delay_days', 'instructions', 'variants'])
    .where('sequence_id', '=', enrollment.sequence_id)
    .orderBy('position')
    .execute();
  return { enrollment, steps };
}

/** Who a draft is for and what it may say: the contact, its company, the opportunity's brief, the organization's register, the sender. */
export async function draftContext(tx: Tx, e: { contactId: string; opportunityId: string | null; mailboxId: string | null; organizationId: string }) {
  const contact = await tx
    .selectFrom('contacts')
    .innerJoin('companies', 'companies.id', 'contacts.company_id')
    .select([
      'contacts.id',
      'contacts.full_name',
      'contacts.title',
      'contacts.email',
      'contacts.phone',
      'companies.name as company_name',
      'companies.generic_email',
      'companies.phone as company_phone',
      'companies.locale',
      'companies.country_code',
    ])
    .where('contacts.id', '=', e.contactId)
    .executeTakeFirst();
  const [brief, settings, mailbox] = await Promise.all([
    e.opportunityId ? tx.selectFrom('opportunities').select('brief').where('id', '=', e.opportunityId).executeTakeFirst() : undefined,
    tx.selectFrom('compliance_settings').select(['default_locale', 'default_formality']).where('organization_id', '=', e.organizationId).executeTakeFirst(),
    e.mailboxId ? tx.selectFrom('mailboxes').select(['id', 'address', 'display_name']).where('id', '=', e.mailboxId).executeTakeFirst() : undefined,
  ]);
  return { contact, brief: brief?.brief ?? null, settings, mailbox };
}

/**
 * Whether an e-mail to this contact (or this address) has gone out before: the first one carries the
 * Art. 14 notice. Gone out means `sent`, or flagged needs_check (it may have been delivered); a first
 * e-mail refused for good was never read, so the next one still carries the notice. One indexed
 * lookup per branch (by contact: messages_org_contact_idx; by address: 0016's
 * messages_org_to_address_idx), joined by UNION ALL instead of an OR no index serves.
 */
export async function emailedBefore(tx: Tx, contactId: string | null, address: string | null, exceptMessageId?: string): Promise<boolean> {
  if (!contactId && !address) return false;
  const gone = sql`direction = ${'outbound'} AND channel = ${'email'} AND (status = ${'sent'} OR needs_check) AND id <> ${exceptMessageId ?? '00000000-0000-0000-0000-000000000000'}::uuid`;
  const byContact = contactId ? sql`(SELECT id FROM messages WHERE contact_id = ${contactId}::uuid AND ${gone} LIMIT 1)` : undefined;
  const byAddress = address
    ? sql`(SELECT id FROM messages WHERE lower(to_address) = ${address.toLowerCase()} AND to_address IS NOT NULL AND ${gone} LIMIT 1)`
    : undefined;
  const branches = [byContact, byAddress].filter((q) => q !== undefined);
  const rows = await sql<{ id: string }>`${sql.join(branches, sql` UNION ALL `)} LIMIT 1`.execute(tx);
  return rows.rows.length > 0;
}

/** Whether an e-mail step of this enrollment went out before this one (the next is a follow-up). */
export async function enrollmentEmailedBefore(tx: Tx, enrollmentId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('messages')
    .select('id')
    .where('enrollment_id', '=', enrollmentId)
    .where('channel', '=', 'email')
    .where('status', '=', 'sent')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The draft written for a step attempt, when it is there already (a retried activity). */
export function draftByKey(tx: Tx, organizationId: string, key: string) {
  return tx
    .selectFrom('messages')
    .select(['id', 'status', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('draft_key', '=', key)
    .executeTakeFirst();
}

/** The rejected draft a redraft answers: its text and what the person said. */
export function rejectedDraft(tx: Tx, organizationId: string, key: string) {
  return tx
    .selectFrom('messages')
    .select(['id', 'subject', 'body', 'rejected_reason'])
    .where('organization_id', '=', organizationId)
    .where('draft_key', '=', key)
    .where('status', '=', 'rejected')
    .executeTakeFirst();
}

export interface DraftRow {
  organizationId: string;
  enrollmentId: string;
  campaignId: string;
  contactId: string;
  stepId: string;
  mailboxId: string | null;
  channel: string;
  status: string;
  subject: string | null;
  body: string;
  fromAddress: string | null;
  toAddress: string | null;
  why: unknown;
  model: string;
  promptKey: string | null;
  promptVersion: string | null;
  confidence: number;
  draftKey: string;
  redraftOf: string | null;
  /** The step variant it is written from (domain/outreach/variants.ts). */
  variantKey?: string | null;
}

/** Stores a draft once per key: a repeat answers the one stored first. */
export async function insertDraft(tx: Tx, d: DraftRow): Promise<string> {
  const inserted = await tx
    .insertInto('messages')
    .values({
      organization_id: d.organizationId,
      enrollment_id: d.enrollmentId,
      campaign_id: d.campaignId,
      contact_id: d.contactId,
      step_id: d.stepId,
      mailbox_id: d.mailboxId,
      direction: 'outbound',
      channel: d.channel,
      status: d.status,
      subject: d.subject,
      body: d.body,
      from_address: d.fromAddress,
      to_address: d.toAddress,
      why: JSON.stringify(d.why),
      model: d.model,
      prompt_key: d.promptKey,
      prompt_version: d.promptVersion,
      confidence: d.confidence,
      draft_key: d.draftKey,
      redraft_of: d.redraftOf,
      variant_key: d.variantKey ?? null,
      ...(d.status === 'approved' ? { approved_at: sql<Date>`now()` } : {}),
    })
    .onConflict((oc) => oc.columns(['organization_id', 'draft_key']).where('draft_key', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted && d.status === 'pending_approval')
    await recordEvent(tx, 'message.pending_approval', { organizationId: d.organizationId, id: inserted.id }, getMessage);
  if (inserted) return inserted.id;
  return (await draftByKey(tx, d.organizationId, d.draftKey))!.id;
}

/** A step's message as the run waits on it, with its enrollment's state. */
export function stepMessage(tx: Tx, messageId: string) {
  return tx
    .selectFrom('messages')
    .leftJoin('enrollments', 'enrollments.id', 'messages.enrollment_id')
    .select([
      'messages.id',
      'messages.status',
      'messages.redraft_requested',
      'messages.enrollment_id',
      'enrollments.status as enrollment_status',
      'enrollments.resume_at',
    ])
    .where('messages.id', '=', messageId)
    .executeTakeFirst();
}

/**
 * Whether this address is the route of another running enrollment (0016's route index): a company's
 * generic inbox gets the e-mails of one enrollment at a time, so another contact's e-mail step to it
 * is skipped.
 */
export async function routeTakenByAnother(tx: Tx, enrollmentId: string, address: string): Promise<boolean> {
  const row = await tx
    .selectFrom('enrollments')
    .select('id')
    .where(sql`lower(route_address)`, '=', address.toLowerCase())
    .where('route_address', 'is not', null)
    .where('status', 'in', ['active', 'paused'])
    .where('id', '<>', enrollmentId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A paused enrollment whose resume_at has passed (an out-of-office) becomes active again; true when it did. */
export async function resumeWhenDue(tx: Tx, enrollmentId: string): Promise<boolean> {
  const r = await tx
    .updateTable('enrollments')
    .set({ status: 'active', pause_reason: null, resume_at: null, next_action_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', enrollmentId)
    .where('status', '=', 'paused')
    .where('resume_at', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

import { sql } from 'kysely';
import type { Tx } from '../tenancy';
import { judgeMailboxProtection, recordSoftBounce } from './mailbox-protection';
import type { BounceReason } from '../../domain/replies/bounce-reasons';
import { planFor } from '../../domain/replies/plan';
import { enrollmentFrom } from '../../domain/outreach/enrollments';
import { addSuppression } from './compliance/suppressions';
import { upsertContact } from './contacts';
import { stopContactEnrollments, transitionEnrollment } from './enrollments';
import type { InboundMessage } from '../../domain/replies/inbound-message';
import { getMessage } from './messages';
import { recordEvent } from './webhook-events';

/**
 * What an inbound message does, per domain/replies/plan.ts, in the transaction that stored it: stop
 * the contact's sequences, pause the rest of the account, hold an out-of-office contact until
 * resume_at, mark the thread, suppress, fail a bounced message, create a referred contact, draft a
 * reply. Answers the message's `why` and the enrollments it changed.
 */
export interface Matched {
  messageId: string;
  threadId: string | null;
  contactId: string | null;
  enrollmentId: string | null;
  outboundId: string | null;
  outboundTo: string | null;
}

/**
 * Active enrollments of contacts of a company, but this contact's: paused with account_replied. A
 * colleague already paused out_of_office now waits for a person too (account_replied, no resume_at).
 */
async function pauseAccount(tx: Tx, organizationId: string, contactId: string): Promise<string[]> {
  const others = await tx
    .selectFrom('enrollments')
    .innerJoin('contacts', 'contacts.id', 'enrollments.contact_id')
    .select('enrollments.id')
    .where('enrollments.organization_id', '=', organizationId)
    .where('enrollments.status', 'in', enrollmentFrom('pause'))
    .where('enrollments.contact_id', '<>', contactId)
    .where('contacts.company_id', '=', (eb) => eb.selectFrom('contacts as c').select('c.company_id').where('c.id', '=', contactId))
    .forUpdate()
    .execute();
  const paused: string[] = [];
  for (const { id } of others) if (await transitionEnrollment(tx, id, 'pause', 'paused', { pauseReason: 'account_replied' })) paused.push(id);
  const away = await tx
    .updateTable('enrollments')
    .set({ pause_reason: 'account_replied', resume_at: null, updated_at: sql`now()` })
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'paused')
    .where('pause_reason', '=', 'out_of_office')
    .where('contact_id', '<>', contactId)
    .where('contact_id', 'in', (eb) =>
      eb
        .selectFrom('contacts')
        .select('contacts.id')
        .where('contacts.company_id', '=', (eb2) => eb2.selectFrom('contacts as c').select('c.company_id').where('c.id', '=', contactId)),
    )
    .returning('id')
    .execute();
  return [...paused, ...away.map((r) => r.id)];
}

/** The addresses an unsubscribe request covers: the sender, the address we wrote to, the matched contact's e-mail (each once, lower case). */
async function unsubscribeAddresses(tx: Tx, m: InboundMessage, match: Matched): Promise<string[]> {
  const contact = match.contactId
    ? await tx.selectFrom('contacts').select('email').where('id', '=', match.contactId).where('erased_at', 'is', null).executeTakeFirst()
    : undefined;
  return [...new Set([m.fromAddress, match.outboundTo, contact?.email].filter((a): a is string => !!a).map((a) => a.toLowerCase()))];
}

/** The contact's active enrollments, paused until resumeAt (out of office). */
async function pauseOutOfOffice(tx: Tx, contactId: string, resumeAt: Date): Promise<string[]> {
  const active = await tx
    .selectFrom('enrollments')
    .select('id')
    .where('contact_id', '=', contactId)
    .where('status', 'in', enrollmentFrom('pause'))
    .forUpdate()
    .execute();
  const paused: string[] = [];
  for (const { id } of active) if (await transitionEnrollment(tx, id, 'pause', 'paused', { pauseReason: 'out_of_office', resumeAt })) paused.push(id);
  return paused;
}

/**
 * A soft bounce of a message we sent, reported by a delivery report: the message fails with its
 * reason (the address stays usable), then it counts as recordSoftBounce says. A repeat of the same
 * report changes nothing more. Answers the triage lines.
 */
async function actOnSoftBounce(tx: Tx, m: InboundMessage, outboundId: string): Promise<string[]> {
  const reason = (m.bounce?.reason ?? 'other') as BounceReason;
  const updated = await tx
    .updateTable('messages')
    .set({
      status: 'failed',
      error: `soft bounce (${reason}): ${m.bounce?.status ?? ''} ${m.bounce?.diagnostic ?? ''}`.trim().slice(0, 1000),
      updated_at: sql`now()`,
    })
    .where('id', '=', outboundId)
    .where('soft_bounced_at', 'is', null)
    .where('bounced_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!updated) return [];
  await recordEvent(tx, 'message.failed', { organizationId: m.organizationId, id: outboundId }, getMessage);
  return recordSoftBounce(tx, outboundId, reason);
}

export async function actOnInbound(tx: Tx, m: InboundMessage, match: Matched): Promise<{ why: Record<string, unknown>; changedEnrollmentIds: string[] }> {
  const c = m.classification;
  // A delivery or abuse report acts only on a message we sent (matched by the original's Message-ID).
  const report = m.kind === 'hard_bounce' || m.kind === 'complaint';
  const plan = report && !match.outboundId ? planFor('auto_reply', null, false) : planFor(m.kind, c?.intent ?? null, (c?.offeredSlots.length ?? 0) > 0);
  const changed = new Set<string>();
  const why: Record<string, unknown> = {};
  const triage: string[] = [];
  if (c) why.reply = { inboundMessageId: match.messageId, intent: c.intent, summary: c.summary };
  if (c?.offeredSlots.length) why.offeredSlots = c.offeredSlots;
  if (m.note) triage.push(m.note);
  if (report && !match.outboundId) {
    const what =
      m.kind === 'complaint'
        ? `An abuse report (${m.complaint?.feedbackType ?? 'no type'})`
        : `A hard bounce (${m.bounce?.status ?? 'no status'}) naming ${m.bounce?.recipient ?? 'no recipient'}`;
    triage.push(`${what} that names no message we sent: recorded only, nothing suppressed or stopped.`);
  } else if (m.kind === 'hard_bounce') {
    triage.push(`Hard bounce (${m.bounce?.status}) of our message to ${match.outboundTo}: the message failed and ${match.outboundTo} is suppressed.`);
  } else if (m.kind === 'complaint') {
    triage.push(
      `An abuse report (${m.complaint?.feedbackType ?? 'no type'}) on our message to ${match.outboundTo}: ${match.outboundTo} is suppressed (complaint) and the contact's sequences stop.`,
    );
  }

  const stopReason = m.kind === 'hard_bounce' ? 'bounced' : m.kind === 'complaint' ? 'complaint' : 'replied';
  if (match.contactId && plan.stopContact) (await stopContactEnrollments(tx, match.contactId, stopReason)).forEach((id) => changed.add(id));
  if (match.contactId && plan.pauseAccount) {
    const paused = await pauseAccount(tx, m.organizationId, match.contactId);
    paused.forEach((id) => changed.add(id));
    if (paused.length) triage.push(`${paused.length} other enrollment(s) at the same company paused (account_replied) until a person resumes them.`);
  }
  if (match.contactId && plan.pauseOutOfOffice && m.resumeAt) {
    (await pauseOutOfOffice(tx, match.contactId, m.resumeAt)).forEach((id) => changed.add(id));
    triage.push(`Out of office: the sequence waits until ${m.resumeAt.toISOString()}.`);
  }
  if (match.threadId && plan.threadStatus) {
    await tx
      .updateTable('threads')
      .set({ status: plan.threadStatus, updated_at: sql`now()` })
      .where('id', '=', match.threadId)
      .execute();
  }
  if (match.contactId && m.kind === 'reply') {
    await tx.updateTable('contacts').set({ last_engaged_at: m.receivedAt }).where('id', '=', match.contactId).execute();
  }
  if (plan.suppress === 'unsubscribe') {
    const addresses = await unsubscribeAddresses(tx, m, match);
    for (const value of addresses) {
      await addSuppression(tx, {
        organizationId: m.organizationId,
        scope: 'email',
        value,
        reason: 'unsubscribe',
        note: `reply ${match.messageId}: ${c?.summary ?? ''}`.slice(0, 500),
        createdBy: null,
      });
    }
    if (addresses.length)
      triage.push(`${addresses.join(', ')} ${addresses.length === 1 ? 'is' : 'are'} suppressed (unsubscribe), with this reply as evidence.`);
  }
  // The address we wrote to, never one the report names (a forwarded address, or a forged one).
  if ((plan.suppress === 'bounce' || plan.suppress === 'complaint') && match.outboundTo) {
    const detail =
      plan.suppress === 'bounce'
        ? `delivery report ${match.messageId}: ${m.bounce?.status ?? ''} ${m.bounce?.diagnostic ?? ''}`
        : `abuse report ${match.messageId}: ${m.complaint?.feedbackType ?? ''}`;
    await addSuppression(tx, {
      organizationId: m.organizationId,
      scope: 'email',
      value: match.outboundTo.toLowerCase(),
      reason: plan.suppress,
      note: detail.trim().slice(0, 500),
      createdBy: null,
    });
  }
  if (plan.failOriginal && match.outboundId) {
    const wasFailed = (await tx.selectFrom('messages').select('status').where('id', '=', match.outboundId).forUpdate().executeTakeFirst())?.status === 'failed';
    await tx
      .updateTable('messages')
      .set({
        status: 'failed',
        error: `bounced: ${m.bounce?.status ?? ''} ${m.bounce?.diagnostic ?? ''}`.trim(),
        bounced_at: sql`coalesce(bounced_at, now())`,
        updated_at: sql`now()`,
      })
      .where('id', '=', match.outboundId)
      .execute();
    // A sent e-mail that bounced later has failed after all (a repeat of the report changes nothing more).
    if (!wasFailed) await recordEvent(tx, 'message.failed', { organizationId: m.organizationId, id: match.outboundId }, getMessage);
  }
  if (m.kind === 'soft_bounce' && match.outboundId && !m.bounce?.delayed) triage.push(...(await actOnSoftBounce(tx, m, match.outboundId)));
  if (plan.suppress === 'complaint' && match.outboundId) {
    await tx
      .updateTable('messages')
      .set({ complained_at: sql`coalesce(complained_at, now())`, updated_at: sql`now()` })
      .where('id', '=', match.outboundId)
      .execute();
  }
  // A hard bounce or a complaint counts against the mailbox that sent it: over its limit, it pauses (migration 0020).
  // A complaint counts only from a trusted feedback loop: a report any recipient could forge never pauses a mailbox.
  if (match.outboundId && (plan.failOriginal || (plan.suppress === 'complaint' && m.complaint?.trusted))) {
    const sender = await tx.selectFrom('messages').select('mailbox_id').where('id', '=', match.outboundId).executeTakeFirst();
    if (sender?.mailbox_id) await judgeMailboxProtection(tx, sender.mailbox_id, plan.suppress === 'complaint' ? 'complaint' : 'bounce');
  }
  if (plan.createReferral && c?.referral) {
    const referral = c.referral;
    const contact = match.contactId
      ? await tx.selectFrom('contacts').select(['company_id', 'full_name']).where('id', '=', match.contactId).executeTakeFirst()
      : undefined;
    if (contact) {
      const created = await upsertContact(tx, m.organizationId, {
        companyId: contact.company_id,
        fullName: referral.name,
        email: referral.email,
        dataSource: 'referral',
        sourceDescription: `Named by ${contact.full_name} in a reply (message ${match.messageId})`,
      });
      triage.push(
        created
          ? `${referral.name} <${referral.email}> was ${created.created ? 'added' : 'already'} as a contact of the same company (data source referral); not contacted until a lawful basis is recorded.`
          : `${referral.name} <${referral.email}> was not added: the person was erased before.`,
      );
    } else {
      triage.push(`Refers to ${referral.name} <${referral.email}>; the sender is not a known contact, so nobody was added.`);
    }
    why.triage = { summary: triage.join(' '), referral };
  }
  if (plan.draftReply && m.draft && match.contactId) {
    const draft = await tx
      .insertInto('messages')
      .values({
        organization_id: m.organizationId,
        thread_id: match.threadId,
        contact_id: match.contactId,
        mailbox_id: m.mailboxId,
        direction: 'outbound',
        channel: 'email',
        status: 'pending_approval',
        subject: m.draft.subject,
        body: m.draft.body,
        original_body: m.draft.body,
        to_address: m.fromAddress,
        why: JSON.stringify({ reply: why.reply, offeredSlots: [m.draft.slot] }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordEvent(tx, 'message.pending_approval', { organizationId: m.organizationId, id: draft.id }, getMessage);
    triage.push(`A reply accepting ${m.draft.slot.start} waits for approval.`);
  }
  if (!why.triage && triage.length) why.triage = { summary: triage.join(' ') };
  return { why, changedEnrollmentIds: [...changed] };
}

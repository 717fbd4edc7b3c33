import { createHash } from 'node:crypto';
import type { Tx } from '../../db/tenancy';
import { dropUnprocessed, findInbound, keepUnprocessed, markUnprocessed, recordInbound, unprocessedDue, type InboundOutcome } from '../../db/queries/inbound';
import type { InboundMessage } from '../../domain/replies/inbound-message';
import { mailboxCalendar } from '../../db/queries/inbox-state';
import { feedbackLoopSenders } from '../../db/queries/compliance/settings';
import { firstSlotInWindow, outOfOfficeResumeAt } from '../../domain/replies/calendar';
import type { ReplyClassifier } from '../../domain/replies/classify';
import type { InboundKind } from '../../domain/replies/plan';
import { isTrustedFeedbackLoop } from '../../domain/replies/feedback-loops';
import { acceptSlotDraft } from '../../domain/replies/reply-draft';
import type { SendingCalendar } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { headerLookup, NotRfc822Error } from '../providers/mail/parse';
import { sharedParsePool, type ParsePool } from './parse-pool';

/**
 * One inbound message, from a raw RFC 822 message to a stored, threaded and acted-on reply: the same
 * code for mail read from a mailbox's IMAP inbox (the worker, as the organization) and mail pushed to
 * POST /mailboxes/{id}/inbound (the API, as the user). `transact` runs a function in a transaction
 * under row-level security as that caller. The message is parsed and rule-classified in the parse
 * worker thread (parse-pool.ts); the model (if any) is asked outside any transaction. Throws
 * NotRfc822Error for a body that is not a message.
 */
export type Transact = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export interface IngestInput {
  organizationId: string;
  mailboxId: string;
  raw: Buffer;
  /** When it arrived (IMAP INTERNALDATE); default now. */
  receivedAt?: Date;
  /** The time now (a proposed time before it is never accepted); default the clock's. */
  now?: Date;
}

/** How many years of holidays a calendar carries (an out-of-office hold is weeks, not years). */
function calendarOf(m: NonNullable<Awaited<ReturnType<typeof mailboxCalendar>>>, at: Date): SendingCalendar {
  const year = at.getUTCFullYear();
  return {
    timezone: m.timezone,
    window: { start: m.window_start, end: m.window_end },
    sendingDays: m.sending_days,
    holidays: publicHolidays(m.holiday_country, m.holiday_region, { from: year - 1, to: year + 2 }),
  };
}

/** An outcome of ingestInbound: the message stored and acted on, a duplicate, or kept unprocessed with its error. */
export type IngestOutcome = InboundOutcome | { duplicate: false; unprocessed: true; messageId: string; error: string; changedEnrollmentIds: [] };

/**
 * One inbound message stored and acted on. Never throws for what the message holds: a message that
 * cannot be processed (its parse over the time budget, a database refusal, any error but a
 * NotRfc822Error, which the caller answers) is kept `unprocessed` with its error and its raw source,
 * and retried by a later inbox poll (retryUnprocessed).
 */
export async function ingestInbound(
  transact: Transact,
  classifier: ReplyClassifier,
  input: IngestInput,
  opts: { pool?: ParsePool } = {},
): Promise<IngestOutcome> {
  try {
    return await processInbound(transact, classifier, input, opts.pool ?? sharedParsePool());
  } catch (err) {
    if (err instanceof NotRfc822Error) throw err;
    const error = (err as Error).message || String(err);
    const kept = await transact((tx) =>
      keepUnprocessed(tx, {
        organizationId: input.organizationId,
        mailboxId: input.mailboxId,
        raw: input.raw,
        receivedAt: input.receivedAt ?? new Date(),
        error,
      }),
    );
    return kept.duplicate
      ? { duplicate: true, messageId: kept.messageId }
      : { duplicate: false, unprocessed: true, messageId: kept.messageId, error, changedEnrollmentIds: [] };
  }
}

async function processInbound(transact: Transact, classifier: ReplyClassifier, input: IngestInput, pool: ParsePool): Promise<InboundOutcome> {
  const mailbox = await transact((tx) => mailboxCalendar(tx, input.mailboxId));
  if (!mailbox) throw new Error(`mailbox ${input.mailboxId} not found`);
  const receivedAt = input.receivedAt ?? new Date();
  const { parsed, decision } = await pool.parse(input.raw, receivedAt, mailbox.timezone);
  const internetMessageId = parsed.messageId ?? `<sha256-${createHash('sha256').update(input.raw).digest('hex')}@inbound.invalid>`;
  const existing = await transact((tx) => findInbound(tx, input.organizationId, input.mailboxId, internetMessageId));
  if (existing) return { duplicate: true, messageId: existing.id };
  const sentAt = parsed.date ?? receivedAt;
  const calendar = calendarOf(mailbox, sentAt);
  const replyInput = {
    subject: parsed.subject,
    text: parsed.text,
    fromAddress: parsed.fromAddress,
    sentAt,
    senderZone: parsed.dateZone ?? calendar.timezone,
    header: headerLookup(parsed),
    rules: decision.rules ?? undefined,
  };

  let kind: InboundKind;
  let note: string | null = null;
  let bounce: InboundMessage['bounce'] = null;
  let complaint: InboundMessage['complaint'] = null;
  let classification: InboundMessage['classification'] = null;
  let resumeAt: Date | null = null;
  let draft: InboundMessage['draft'] = null;
  const report = decision.report;
  if (report?.kind === 'complaint') {
    // An abuse report is never a reply: it acts only when it names a message we sent.
    kind = 'complaint';
    const ownLoops = report.structured && report.reporter ? await transact((tx) => feedbackLoopSenders(tx, input.organizationId)) : [];
    const trusted = !!report.structured && isTrustedFeedbackLoop(report.reporter, parsed.headers['authentication-results'] ?? null, ownLoops);
    complaint = { originalMessageId: report.originalMessageId, feedbackType: report.reason, originalRecipient: report.recipient, trusted };
  } else if (report) {
    kind = report.kind;
    bounce = {
      originalMessageId: report.originalMessageId,
      recipient: report.recipient,
      status: report.status,
      diagnostic: report.diagnostic,
      reason: report.reason,
      delayed: report.delayed,
    };
    note =
      kind === 'soft_bounce'
        ? `Soft bounce (${report.reason}${report.status ? `, ${report.status}` : ''}) for ${report.recipient ?? 'an unnamed recipient'}${report.delayed ? ': delivery delayed, the server keeps trying' : ''}; the address stays usable.`
        : kind === 'report'
          ? `A report (${report.reason}) that asks for nothing: recorded.`
          : null;
  } else if (decision.kind === 'auto_reply') {
    kind = 'auto_reply';
    note = `An automatic reply (${decision.marker}), not a reply: recorded.`;
  } else {
    const c = await classifier.classify(replyInput);
    kind = c.intent === 'out_of_office' ? 'out_of_office' : 'reply';
    classification = c;
    if (c.modelError) note = `The model failed (${c.modelError}); the rules classified this reply.`;
    if (kind === 'out_of_office') resumeAt = outOfOfficeResumeAt(c.returnDate, receivedAt, calendar);
    const slot = c.offeredSlots.length ? firstSlotInWindow(c.offeredSlots, calendar, input.now ?? new Date()) : null;
    if (slot)
      draft = { ...acceptSlotDraft({ language: c.language, slot, timezone: calendar.timezone, contactName: parsed.fromName, subject: parsed.subject }), slot };
  }
  return transact((tx) =>
    recordInbound(tx, {
      organizationId: input.organizationId,
      mailboxId: input.mailboxId,
      internetMessageId,
      inReplyTo: parsed.inReplyTo,
      references: parsed.references,
      fromAddress: parsed.fromAddress,
      toAddress: parsed.toAddresses[0] ?? null,
      subject: parsed.subject,
      body: parsed.text,
      receivedAt,
      kind,
      bounce,
      complaint,
      classification,
      resumeAt,
      draft,
      note,
    }),
  );
}

/**
 * Retries the mailbox's unprocessed messages (at most `limit`, the least recently tried first, for
 * 24 hours after they arrived): each one processed now replaces its unprocessed row.
 */
export async function retryUnprocessed(
  transact: Transact,
  classifier: ReplyClassifier,
  input: { organizationId: string; mailboxId: string; limit: number },
  opts: { pool?: ParsePool } = {},
) {
  const due = await transact((tx) => unprocessedDue(tx, input.mailboxId, input.limit));
  const changed: string[] = [];
  let processed = 0;
  for (const m of due) {
    try {
      const outcome = await processInbound(
        transact,
        classifier,
        { organizationId: input.organizationId, mailboxId: input.mailboxId, raw: m.inbound_source!, receivedAt: m.received_at ?? undefined },
        opts.pool ?? sharedParsePool(),
      );
      await transact((tx) => dropUnprocessed(tx, m.id));
      processed++;
      if (!outcome.duplicate) changed.push(...outcome.changedEnrollmentIds);
    } catch (err) {
      await transact((tx) => markUnprocessed(tx, m.id, (err as Error).message || String(err)));
    }
  }
  return { tried: due.length, processed, changedEnrollmentIds: changed };
}

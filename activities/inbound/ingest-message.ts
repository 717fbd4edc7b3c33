import { createHash } from 'node:crypto';
import type { Tx } from '../../db/tenancy';
import { findInbound, recordInbound, type InboundMessage, type InboundOutcome } from '../../db/queries/inbound';
import { mailboxCalendar } from '../../db/queries/inbox-state';
import { firstSlotInWindow, outOfOfficeResumeAt } from '../../domain/replies/calendar';
import { machineKind, type ReplyClassifier } from '../../domain/replies/classify';
import type { InboundKind } from '../../domain/replies/plan';
import { acceptSlotDraft } from '../../domain/replies/reply-draft';
import type { SendingCalendar } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { headerLookup, parseInbound } from '../providers/mail/parse';

/**
 * One inbound message, from a raw RFC 822 message to a stored, threaded and acted-on reply: the same
 * code for mail read from a mailbox's IMAP inbox (the worker, as the organization) and mail pushed to
 * POST /mailboxes/{id}/inbound (the API, as the user). `transact` runs a function in a transaction
 * under row-level security as that caller. The model (if any) is asked outside any transaction.
 * Throws NotRfc822Error for a body that is not a message.
 */
export type Transact = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export interface IngestInput {
  organizationId: string;
  mailboxId: string;
  raw: Buffer;
  /** When it arrived (IMAP INTERNALDATE); default now. */
  receivedAt?: Date;
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

export async function ingestInbound(transact: Transact, classifier: ReplyClassifier, input: IngestInput): Promise<InboundOutcome> {
  const parsed = await parseInbound(input.raw);
  const internetMessageId = parsed.messageId ?? `<sha256-${createHash('sha256').update(input.raw).digest('hex')}@inbound.invalid>`;
  const found = await transact(async (tx) => ({
    existing: await findInbound(tx, input.organizationId, input.mailboxId, internetMessageId),
    mailbox: await mailboxCalendar(tx, input.mailboxId),
  }));
  if (found.existing) return { duplicate: true, messageId: found.existing.id };
  if (!found.mailbox) throw new Error(`mailbox ${input.mailboxId} not found`);
  const receivedAt = input.receivedAt ?? new Date();
  const sentAt = parsed.date ?? receivedAt;
  const calendar = calendarOf(found.mailbox, sentAt);
  const replyInput = { subject: parsed.subject, text: parsed.text, fromAddress: parsed.fromAddress, sentAt, senderZone: parsed.dateZone ?? calendar.timezone, header: headerLookup(parsed) };

  let kind: InboundKind;
  let note: string | null = null;
  let bounce: InboundMessage['bounce'] = null;
  let classification: InboundMessage['classification'] = null;
  let resumeAt: Date | null = null;
  let draft: InboundMessage['draft'] = null;
  const status = parsed.report?.statuses.find((s) => s.kind !== 'delivered');
  const machine = machineKind(replyInput);
  if (parsed.report) {
    kind = status?.kind === 'hard' ? 'hard_bounce' : status?.kind === 'soft' ? 'soft_bounce' : 'auto_reply';
    bounce = { originalMessageId: parsed.report.originalMessageId, recipient: status?.recipient ?? null, status: status?.status ?? null, diagnostic: status?.diagnostic ?? null };
    note =
      kind === 'hard_bounce'
        ? `Hard bounce (${bounce.status}) for ${bounce.recipient}: the message failed and the address is suppressed.`
        : kind === 'soft_bounce'
          ? `Soft bounce (${bounce.status}) for ${bounce.recipient}: recorded; the address stays usable.`
          : 'A delivery report: recorded.';
  } else if (machine.kind === 'auto_reply' && !machine.outOfOffice) {
    kind = 'auto_reply';
    note = `An automatic reply (${machine.marker}), not a reply: recorded.`;
  } else {
    const c = await classifier.classify(replyInput);
    kind = c.intent === 'out_of_office' ? 'out_of_office' : 'reply';
    classification = c;
    if (kind === 'out_of_office') resumeAt = outOfOfficeResumeAt(c.returnDate, receivedAt, calendar);
    const slot = c.offeredSlots.length ? firstSlotInWindow(c.offeredSlots, calendar, new Date()) : null;
    if (slot) draft = { ...acceptSlotDraft({ language: c.language, slot, timezone: calendar.timezone, contactName: parsed.fromName, subject: parsed.subject }), slot };
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
      classification,
      resumeAt,
      draft,
      note,
    }),
  );
}

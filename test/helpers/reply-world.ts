import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';

/**
 * A small outreach world for reply tests, written as the owner: an organization (or the given one),
 * a company with two contacts (the one who replies and a colleague), a campaign whose sequence runs
 * for both (active enrollments), a mailbox (Europe/Amsterdam, 09:00-17:00, Monday to Friday, NL
 * holidays), the first e-mail sent to the replier (its Message-ID as compose.ts writes it, in a
 * thread) and a draft waiting for each of them.
 */
export const OUTBOUND_MESSAGE_ID = '<8f14e45f-ceea-467f-a0e6-1b4a2b5c6d7e@example-sender.nl>';

export interface ReplyWorld {
  orgId: string;
  companyId: string;
  mailboxId: string;
  replier: { contactId: string; enrollmentId: string; draftId: string; email: string };
  colleague: { contactId: string; enrollmentId: string; draftId: string; email: string };
  outboundId: string;
  threadId: string;
}

export async function seedReplyWorld(
  owner: Pool,
  opts: {
    orgId?: string;
    replierEmail: string;
    replierName?: string;
    subject?: string;
    imap?: { host: string; port: number; username: string } | null;
    secret?: Buffer | null;
    mailboxId?: string;
  },
): Promise<ReplyWorld> {
  const orgId = opts.orgId ?? randomUUID();
  if (!opts.orgId) await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'Reply org', gen_random_uuid())`, [orgId]);
  const q = async (text: string, values: unknown[]) => (await owner.query<{ id: string }>(text, values)).rows[0]!.id;
  const domain = opts.replierEmail.split('@')[1]!;
  const companyId = await q(
    `INSERT INTO companies (organization_id, name, normalized_name, domain) VALUES ($1, 'Bouwbedrijf B.V.', 'bouwbedrijf', $2) RETURNING id`,
    [orgId, domain],
  );
  const contact = (name: string, email: string) =>
    // A checked address, as a contact created through the API or an import soon has.
    q(
      `INSERT INTO contacts (organization_id, company_id, full_name, email, email_status, email_checked_at) VALUES ($1, $2, $3, $4, 'valid', now()) RETURNING id`,
      [orgId, companyId, name, email],
    );
  const replierId = await contact(opts.replierName ?? 'Jan de Vries', opts.replierEmail);
  const colleagueEmail = `collega.${randomUUID().slice(0, 6)}@${domain}`;
  const colleagueId = await contact('Karin Visser', colleagueEmail);
  const mailboxId = await q(
    `INSERT INTO mailboxes (id, organization_id, address, domain, holiday_country, timezone, window_start, window_end, sending_days, imap_config, secret_ciphertext)
     VALUES ($1, $2, $3, 'example-sender.nl', 'NL', 'Europe/Amsterdam', '09:00', '17:00', '{1,2,3,4,5}', $4, $5) RETURNING id`,
    [
      opts.mailboxId ?? randomUUID(),
      orgId,
      `sanne.${randomUUID().slice(0, 6)}@example-sender.nl`,
      opts.imap ? JSON.stringify({ ...opts.imap, secure: false }) : null,
      opts.secret ?? null,
    ],
  );
  const campaignId = await q(`INSERT INTO campaigns (organization_id, name, status, mailbox_id) VALUES ($1, 'Kerkstraat', 'active', $2) RETURNING id`, [
    orgId,
    mailboxId,
  ]);
  const sequenceId = await q(`INSERT INTO sequences (organization_id, campaign_id, name) VALUES ($1, $2, 'Kerkstraat') RETURNING id`, [orgId, campaignId]);
  const enroll = (contactId: string) =>
    q(
      `INSERT INTO enrollments (organization_id, campaign_id, sequence_id, contact_id, status, current_step) VALUES ($1, $2, $3, $4, 'active', 1) RETURNING id`,
      [orgId, campaignId, sequenceId, contactId],
    );
  const replierEnrollment = await enroll(replierId);
  const colleagueEnrollment = await enroll(colleagueId);
  const subject = opts.subject ?? 'Uw aanvraag omgevingsvergunning Kerkstraat 12';
  const threadId = await q(`INSERT INTO threads (organization_id, contact_id, enrollment_id, mailbox_id, subject) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
    orgId,
    replierId,
    replierEnrollment,
    mailboxId,
    subject,
  ]);
  const outboundId = await q(
    `INSERT INTO messages (organization_id, enrollment_id, thread_id, contact_id, mailbox_id, direction, status, subject, body, to_address, sent_at, provider_message_id)
     VALUES ($1, $2, $3, $4, $5, 'outbound', 'sent', $6, 'Beste Jan, ...', $7, now() - interval '1 day', $8) RETURNING id`,
    [orgId, replierEnrollment, threadId, replierId, mailboxId, subject, opts.replierEmail, OUTBOUND_MESSAGE_ID],
  );
  const draft = (enrollmentId: string, contactId: string) =>
    q(
      `INSERT INTO messages (organization_id, enrollment_id, contact_id, mailbox_id, direction, status, subject, body) VALUES ($1, $2, $3, $4, 'outbound', 'pending_approval', 'Opvolging', 'Nog even...') RETURNING id`,
      [orgId, enrollmentId, contactId, mailboxId],
    );
  return {
    orgId,
    companyId,
    mailboxId,
    replier: { contactId: replierId, enrollmentId: replierEnrollment, draftId: await draft(replierEnrollment, replierId), email: opts.replierEmail },
    colleague: { contactId: colleagueId, enrollmentId: colleagueEnrollment, draftId: await draft(colleagueEnrollment, colleagueId), email: colleagueEmail },
    outboundId,
    threadId,
  };
}

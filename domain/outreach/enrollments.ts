import { acceptDecision, type EmailStatus } from '../contacts/email-verification';
import type { GateDecision } from '../compliance/gate';

/**
 * Campaign and enrollment statuses, and the transitions between them, as data: the queries that
 * change a status (db/queries/campaigns.ts, db/queries/enrollments.ts) only move along these edges,
 * and the API answers 409 for any other. The next step (the per-enrollment sequence workflow)
 * moves enrollments along the same table.
 */
export const CAMPAIGN_STATUSES = ['proposed', 'active', 'paused', 'completed', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_TRANSITIONS = {
  accept: { from: ['proposed'], to: 'active' },
  dismiss: { from: ['proposed'], to: 'archived' },
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  complete: { from: ['active'], to: 'completed' },
  archive: { from: ['active', 'paused', 'completed'], to: 'archived' },
} as const satisfies Record<string, { from: readonly CampaignStatus[]; to: CampaignStatus }>;
export type CampaignAction = keyof typeof CAMPAIGN_TRANSITIONS;

export const ENROLLMENT_STATUSES = ['active', 'paused', 'stopped', 'completed', 'failed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];
export const PAUSE_REASONS = ['out_of_office', 'account_replied'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/**
 * stop: a person (API), a meeting, a reply or an unsubscribe ends it; pause: an out-of-office reply
 * (with resume_at) or a reply from someone else at the company; resume: a person, or resume_at
 * passing; complete: the last step done; fail: a step failed for good.
 */
export const ENROLLMENT_TRANSITIONS = {
  stop: { from: ['active', 'paused'], to: 'stopped' },
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  complete: { from: ['active'], to: 'completed' },
  fail: { from: ['active', 'paused'], to: 'failed' },
} as const satisfies Record<string, { from: readonly EnrollmentStatus[]; to: EnrollmentStatus }>;
export type EnrollmentAction = keyof typeof ENROLLMENT_TRANSITIONS;

/** The statuses an action may start from (what the UPDATE's WHERE clause allows). */
export function campaignFrom(action: CampaignAction): CampaignStatus[] {
  return [...CAMPAIGN_TRANSITIONS[action].from];
}
export function enrollmentFrom(action: EnrollmentAction): EnrollmentStatus[] {
  return [...ENROLLMENT_TRANSITIONS[action].from];
}
export function canCampaign(action: CampaignAction, status: string): boolean {
  return (CAMPAIGN_TRANSITIONS[action].from as readonly string[]).includes(status);
}
export function canEnrollment(action: EnrollmentAction, status: string): boolean {
  return (ENROLLMENT_TRANSITIONS[action].from as readonly string[]).includes(status);
}

/** Messages of an enrollment that still wait to go out: a stop marks them `skipped`. */
export const WAITING_MESSAGE_STATUSES = ['pending_approval', 'approved', 'scheduled', 'task_open'] as const;

export const STEP_CHANNELS = ['email', 'phone', 'linkedin'] as const;
export type StepChannel = (typeof STEP_CHANNELS)[number];

export const SKIP_REASONS = [
  'already_enrolled',
  'erased',
  'suppressed',
  'no_lawful_basis',
  'no_allowed_channel',
  'channel_not_allowed',
  'no_email',
  'invalid_email',
  'risky_email',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Where an e-mail step to this contact goes: the person's own address, the company's generic one, or nowhere. */
export type EmailRoute = 'personal' | 'generic' | null;

export interface ContactChannels {
  /** The step channels usable for the contact: allowed by the gate and with an address or number to use. */
  usable: StepChannel[];
  email: EmailRoute;
}

/**
 * What the compliance gate allows for a contact, per step channel: e-mail goes to the person's
 * address when the policy allows personal e-mail and the contact has one, else to the company's
 * published generic address when the policy allows that (a Dutch company's named people need
 * consent; its generic address does not); phone needs an allowed policy row and a number (the
 * contact's or the company's); LinkedIn is a manual task and needs only the policy.
 */
export function contactChannels(
  gate: Pick<GateDecision, 'contactable' | 'channels'>,
  contact: { email: string | null; phone: string | null },
  company: { generic_email: string | null; phone: string | null },
): ContactChannels {
  const allowed = (c: string) => gate.contactable && gate.channels.some((x) => x.channel === c && x.allowed);
  const email: EmailRoute = allowed('email_personal') && contact.email ? 'personal' : allowed('email_generic') && company.generic_email ? 'generic' : null;
  const usable: StepChannel[] = [];
  if (email) usable.push('email');
  if (allowed('phone') && (contact.phone || company.phone)) usable.push('phone');
  if (allowed('linkedin')) usable.push('linkedin');
  return { usable, email };
}

/**
 * Whether a contact may be enrolled in a campaign with these step channels, and why not: the gate's
 * own reasons first (erased, suppressed, no lawful basis, no allowed channel), then whether any
 * step can reach the contact (no e-mail address where e-mail is the only allowed way: no_email;
 * else channel_not_allowed). Already enrolled is decided by the caller, before this.
 */
export function enrollmentDecision(
  gate: Pick<GateDecision, 'contactable' | 'reasons' | 'channels'>,
  channels: ContactChannels,
  stepChannels: readonly StepChannel[],
  address: { status: EmailStatus; allowRisky: boolean } = { status: 'valid', allowRisky: false },
): { enroll: true } | { enroll: false; reason: SkipReason } {
  for (const code of ['erased', 'suppressed', 'no_lawful_basis', 'no_allowed_channel'] as const) {
    if (gate.reasons.includes(code)) return { enroll: false, reason: code };
  }
  if (!gate.contactable) return { enroll: false, reason: 'no_allowed_channel' };
  // The person's own address must be one the checks found deliverable; an unknown one goes, and is
  // checked again before its first e-mail.
  if (stepChannels.includes('email') && channels.email === 'personal') {
    const verdict = acceptDecision(address.status, address.allowRisky);
    if (verdict === 'invalid_email' || verdict === 'risky_email') return { enroll: false, reason: verdict };
  }
  if (stepChannels.some((c) => channels.usable.includes(c))) return { enroll: true };
  const emailAllowed = gate.channels.some((x) => (x.channel === 'email_personal' || x.channel === 'email_generic') && x.allowed);
  if (stepChannels.includes('email') && emailAllowed && !channels.email) return { enroll: false, reason: 'no_email' };
  return { enroll: false, reason: 'channel_not_allowed' };
}

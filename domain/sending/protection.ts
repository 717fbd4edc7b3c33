/**
 * Mailbox protection: the last
 * seven days' sends, hard bounces and complaints, their rates, and whether the bounce or complaint
 * just recorded pauses the mailbox. Pure; the counts come from db/queries.
 */
export interface Protection {
  maxBounceRate: number;
  maxComplaintRate: number;
  /** The share of sends refused for the sender (blocked, spam, policy, auth_failure soft bounces) that pauses it. */
  maxBlockRate: number;
  minSample: number;
}

export const DEFAULT_PROTECTION: Protection = { maxBounceRate: 0.02, maxComplaintRate: 0.001, maxBlockRate: 0.05, minSample: 20 };

export const mailboxStatuses = ['active', 'paused'] as const;
export type MailboxStatus = (typeof mailboxStatuses)[number];
export const pausedReasons = ['bounce_rate', 'complaint_rate', 'block_rate', 'health', 'auth', 'manual'] as const;
export type PausedReason = (typeof pausedReasons)[number];

export interface SevenDayCounts {
  sent: number;
  hardBounces: number;
  complaints: number;
  /** Soft bounces that say the receiver refused the sender. */
  blocks: number;
}

export interface SevenDayStats {
  sent: number;
  hard_bounces: number;
  complaints: number;
  bounce_rate: number;
  complaint_rate: number;
  blocks: number;
  block_rate: number;
}

/** A share of sent, rounded to 4 decimals; 0 when nothing was sent. */
function rate(n: number, sent: number): number {
  return sent > 0 ? Math.round((n / sent) * 10000) / 10000 : 0;
}

export function sevenDayStats(c: SevenDayCounts): SevenDayStats {
  return {
    sent: c.sent,
    hard_bounces: c.hardBounces,
    complaints: c.complaints,
    bounce_rate: rate(c.hardBounces, c.sent),
    complaint_rate: rate(c.complaints, c.sent),
    blocks: c.blocks,
    block_rate: rate(c.blocks, c.sent),
  };
}

/**
 * Whether the event just recorded (a hard bounce or a complaint, already counted in `counts`) pauses
 * the mailbox: only once the sample reaches minSample sends, and only when its own rate is above the
 * limit (strictly). A bounce is judged on the bounce rate, a complaint on the complaint rate, a block
 * (a soft bounce refusing the sender) on the block rate.
 */
export type ProtectionEvent = 'bounce' | 'complaint' | 'block';

export function protectionVerdict(event: ProtectionEvent, counts: SevenDayCounts, p: Protection): PausedReason | null {
  if (counts.sent < p.minSample || counts.sent <= 0) return null;
  if (event === 'bounce') return counts.hardBounces / counts.sent > p.maxBounceRate ? 'bounce_rate' : null;
  if (event === 'block') return counts.blocks / counts.sent > p.maxBlockRate ? 'block_rate' : null;
  return counts.complaints / counts.sent > p.maxComplaintRate ? 'complaint_rate' : null;
}

/** A health check's effect on the mailbox's status: an unsendable result pauses an active mailbox; a sendable one resumes a mailbox paused for health only. */
export function healthTransition(status: MailboxStatus, pausedReason: PausedReason | null, sendable: boolean): 'pause' | 'resume' | null {
  if (!sendable) return status === 'active' ? 'pause' : null;
  return status === 'paused' && pausedReason === 'health' ? 'resume' : null;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Booking webhooks of Cal.com and Calendly: verifying their signatures on the raw body, and reading a
 * delivery into one booking event. Pure code: the API verifies and parses, the worker records.
 */
export const BOOKING_PROVIDERS = ['calcom', 'calendly'] as const;
export type BookingProvider = (typeof BOOKING_PROVIDERS)[number];

/** Calendly refuses (and so do we) a signature older than this. */
export const CALENDLY_TOLERANCE_SECONDS = 180;

function sameHex(expected: Buffer, given: string): boolean {
  if (!/^[0-9a-f]+$/i.test(given) || given.length !== expected.length * 2) return false;
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** Cal.com: `X-Cal-Signature-256` is the hex HMAC-SHA256 of the raw body under the webhook's secret. */
export function verifyCalcomSignature(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return sameHex(expected, header.trim());
}

export type CalendlyVerdict = 'ok' | 'bad' | 'stale';

/**
 * Calendly: `Calendly-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`; a t more
 * than CALENDLY_TOLERANCE_SECONDS from now (either way) is stale.
 */
export function verifyCalendlySignature(raw: Buffer, header: string | undefined, secret: string, nowMs: number): CalendlyVerdict {
  if (!header) return 'bad';
  const parts = new Map<string, string[]>();
  for (const piece of header.split(',')) {
    const at = piece.indexOf('=');
    if (at <= 0) continue;
    const k = piece.slice(0, at).trim();
    parts.set(k, [...(parts.get(k) ?? []), piece.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  const signatures = parts.get('v1') ?? [];
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return 'bad';
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  if (!signatures.some((s) => sameHex(expected, s))) return 'bad';
  if (Math.abs(nowMs / 1000 - Number(t)) > CALENDLY_TOLERANCE_SECONDS) return 'stale';
  return 'ok';
}

/**
 * When the provider says the change happened (Cal.com's `createdAt`, Calendly's `created_at`), for
 * ordering a booking against its cancellation; null when absent or not a timestamp. `digest`: the
 * delivery's body digest, set by the webhook route (the worker keeps it so a replay changes nothing).
 */
interface Delivery {
  occurredAt?: string | null;
  digest?: string;
}

/** What a delivery means for the meetings. */
export type BookingEvent =
  | (Delivery & {
      kind: 'booked';
      externalId: string;
      /** The booking this one replaces (a reschedule): that meeting moves instead of a new one. */
      previousExternalId: string | null;
      title: string;
      startsAt: string;
      endsAt: string;
      attendeeEmail: string | null;
      attendeeName: string | null;
      joinUrl: string | null;
      /** The enrollment named in the booking link (Cal.com metadata, Calendly utm_content), when it is a UUID. */
      enrollmentId: string | null;
    })
  | (Delivery & { kind: 'cancelled'; externalId: string })
  | { kind: 'ignored'; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const enrollmentOf = (v: unknown) => (typeof v === 'string' && UUID.test(v.trim()) ? v.trim().toLowerCase() : null);
const text = (max: number) => z.string().trim().min(1).max(max);
const instant = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a timestamp')
  .transform((v) => new Date(v).toISOString());
const email = z.string().trim().max(320).email();
const url = z.string().trim().max(2000).url();

/** Thrown for a delivery whose shape is wrong (the API answers 400 VALIDATION_FAILED). */
export class BookingShapeError extends Error {
  constructor(readonly errors: Array<{ path: string; message: string }>) {
    super('the booking delivery has invalid fields');
  }
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body);
  if (!r.success) throw new BookingShapeError(r.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message })));
  return r.data;
}

const calcomEnvelope = z.object({ triggerEvent: z.string().max(100), payload: z.unknown().optional() }).passthrough();

/** The envelope's own time of the change, leniently: a value that is not a timestamp is no time (null). */
function occurredAt(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 64) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
const calcomBooking = z
  .object({
    uid: text(200),
    title: text(500),
    startTime: instant,
    endTime: instant,
    attendees: z
      .array(z.object({ email: email.optional(), name: z.string().max(300).optional() }).passthrough())
      .max(100)
      .default([]),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    videoCallData: z.object({ url: url.optional() }).passthrough().nullish(),
    location: z.string().max(2000).nullish(),
    rescheduleUid: z.string().max(200).nullish(),
    rescheduledFromUid: z.string().max(200).nullish(),
  })
  .passthrough();
const calcomCancel = z.object({ uid: text(200) }).passthrough();

/** A Cal.com delivery: BOOKING_CREATED, BOOKING_RESCHEDULED, BOOKING_CANCELLED; anything else is ignored. */
export function calcomBookingEvent(body: unknown): BookingEvent {
  const env = parse(calcomEnvelope, body);
  switch (env.triggerEvent) {
    case 'BOOKING_CREATED':
    case 'BOOKING_RESCHEDULED': {
      const p = parse(z.object({ payload: calcomBooking }), body).payload;
      const metadata = p.metadata ?? {};
      const attendee = p.attendees.find((a) => a.email) ?? p.attendees[0];
      const location = p.location && /^https?:\/\//.test(p.location) ? p.location : null;
      const previous = env.triggerEvent === 'BOOKING_RESCHEDULED' ? (p.rescheduleUid ?? p.rescheduledFromUid ?? null) : null;
      return {
        kind: 'booked',
        occurredAt: occurredAt(env.createdAt),
        externalId: p.uid,
        previousExternalId: previous && previous !== p.uid ? previous : null,
        title: p.title,
        startsAt: p.startTime,
        endsAt: p.endTime,
        attendeeEmail: attendee?.email?.toLowerCase() ?? null,
        attendeeName: attendee?.name?.trim() || null,
        joinUrl:
          p.videoCallData?.url ?? (typeof metadata.videoCallUrl === 'string' && /^https?:\/\//.test(metadata.videoCallUrl) ? metadata.videoCallUrl : location),
        enrollmentId: enrollmentOf(metadata.enrollmentId ?? metadata.enrollment_id ?? metadata.enrollment),
      };
    }
    case 'BOOKING_CANCELLED':
      return { kind: 'cancelled', occurredAt: occurredAt(env.createdAt), externalId: parse(z.object({ payload: calcomCancel }), body).payload.uid };
    default:
      return { kind: 'ignored', reason: `trigger ${env.triggerEvent} is not a booking change` };
  }
}

const calendlyEnvelope = z.object({ event: z.string().max(100), payload: z.unknown().optional() }).passthrough();
const calendlyInvitee = z
  .object({
    uri: url,
    email: email.optional(),
    name: z.string().max(300).optional(),
    old_invitee: url.nullish(),
    rescheduled: z.boolean().nullish(),
    scheduled_event: z
      .object({ name: text(500), start_time: instant, end_time: instant, location: z.object({ join_url: url.nullish() }).passthrough().nullish() })
      .passthrough(),
    tracking: z
      .object({ utm_content: z.string().max(200).nullish() })
      .passthrough()
      .nullish(),
  })
  .passthrough();
const calendlyCancel = z.object({ uri: url, rescheduled: z.boolean().nullish() }).passthrough();

/** A Calendly delivery: invitee.created (a reschedule names old_invitee), invitee.canceled; anything else is ignored. */
export function calendlyBookingEvent(body: unknown): BookingEvent {
  const env = parse(calendlyEnvelope, body);
  switch (env.event) {
    case 'invitee.created': {
      const p = parse(z.object({ payload: calendlyInvitee }), body).payload;
      return {
        kind: 'booked',
        occurredAt: occurredAt(env.created_at),
        externalId: p.uri,
        previousExternalId: p.old_invitee && p.old_invitee !== p.uri ? p.old_invitee : null,
        title: p.scheduled_event.name,
        startsAt: p.scheduled_event.start_time,
        endsAt: p.scheduled_event.end_time,
        attendeeEmail: p.email?.toLowerCase() ?? null,
        attendeeName: p.name?.trim() || null,
        joinUrl: p.scheduled_event.location?.join_url ?? null,
        enrollmentId: enrollmentOf(p.tracking?.utm_content),
      };
    }
    case 'invitee.canceled': {
      const p = parse(z.object({ payload: calendlyCancel }), body).payload;
      // A reschedule cancels the old invitee and creates a new one naming it: the creation moves the meeting.
      if (p.rescheduled) return { kind: 'ignored', reason: 'cancelled by a reschedule (the new invitee moves the meeting)' };
      return { kind: 'cancelled', occurredAt: occurredAt(env.created_at), externalId: p.uri };
    }
    default:
      return { kind: 'ignored', reason: `event ${env.event} is not a booking change` };
  }
}

export function bookingEvent(provider: BookingProvider, body: unknown): BookingEvent {
  return provider === 'calcom' ? calcomBookingEvent(body) : calendlyBookingEvent(body);
}

import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { BookingShapeError, calcomBookingEvent, calendlyBookingEvent, verifyCalcomSignature, verifyCalendlySignature } from '../../domain/meetings/bookings';
import { reminderAt, reminderEmail, reminderTask } from '../../domain/meetings/meetings';

/** The pure half of the booking webhooks and reminders: signatures, payloads, reminder texts. */
const hmac = (secret: string, ...parts: Array<string | Buffer>) => parts.reduce((h, p) => h.update(p), createHmac('sha256', secret)).digest('hex');

describe('Cal.com signature (hex HMAC-SHA256 of the raw body)', () => {
  test('accepts exactly the signature of these bytes under this secret, in either hex case', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string({ minLength: 1, maxLength: 30 }), (bytes, secret) => {
        const body = Buffer.from(bytes);
        const sig = hmac(secret, body);
        expect(verifyCalcomSignature(body, sig, secret)).toBe(true);
        expect(verifyCalcomSignature(body, sig.toUpperCase(), secret)).toBe(true);
        expect(verifyCalcomSignature(Buffer.concat([body, Buffer.from(' ')]), sig, secret)).toBe(false);
        expect(verifyCalcomSignature(body, sig, `${secret}x`)).toBe(false);
        expect(verifyCalcomSignature(body, sig.slice(0, -2), secret)).toBe(false);
      }),
    );
  });
  test('a missing, empty or non-hex header is refused', () => {
    const body = Buffer.from('{}');
    for (const header of [undefined, '', 'zz'.repeat(32), `sha256=${hmac('s', body)}`]) expect(verifyCalcomSignature(body, header, 's')).toBe(false);
  });
});

describe('Calendly signature (t=...,v1=... over "t.body", 3 minutes)', () => {
  const body = Buffer.from('{"event":"invitee.created"}');
  const now = 1_800_000_000_000;
  const t = now / 1000;
  test('a fresh, matching signature is ok; another v1 among several is ok too', () => {
    expect(verifyCalendlySignature(body, `t=${t},v1=${hmac('s', `${t}.`, body)}`, 's', now)).toBe('ok');
    expect(verifyCalendlySignature(body, `t=${t},v1=${'0'.repeat(64)},v1=${hmac('s', `${t}.`, body)}`, 's', now)).toBe('ok');
  });
  test('older (or further ahead) than 3 minutes is stale; a wrong secret, body or shape is bad', () => {
    const old = t - 181;
    expect(verifyCalendlySignature(body, `t=${old},v1=${hmac('s', `${old}.`, body)}`, 's', now)).toBe('stale');
    const ahead = t + 181;
    expect(verifyCalendlySignature(body, `t=${ahead},v1=${hmac('s', `${ahead}.`, body)}`, 's', now)).toBe('stale');
    expect(verifyCalendlySignature(body, `t=${t - 180},v1=${hmac('s', `${t - 180}.`, body)}`, 's', now)).toBe('ok');
    expect(verifyCalendlySignature(body, `t=${t},v1=${hmac('x', `${t}.`, body)}`, 's', now)).toBe('bad');
    expect(verifyCalendlySignature(Buffer.from('{}'), `t=${t},v1=${hmac('s', `${t}.`, body)}`, 's', now)).toBe('bad');
    // A stale timestamp with a forged signature is bad, not stale: nothing is said about a signature that does not verify.
    expect(verifyCalendlySignature(body, `t=${old},v1=${'ab'.repeat(32)}`, 's', now)).toBe('bad');
    for (const header of [undefined, '', `v1=${hmac('s', body)}`, `t=abc,v1=00`, `t=${t}`]) expect(verifyCalendlySignature(body, header, 's', now)).toBe('bad');
  });
});

describe('payloads', () => {
  const enrollment = '6f1c2b9e-8c0a-4d8e-9a43-2f3b4c5d6e7f';
  test('Cal.com: created, rescheduled (naming the booking it replaces), cancelled; other triggers ignored', () => {
    const payload = {
      uid: 'new',
      title: 'Demo',
      startTime: '2031-03-03T10:00:00+01:00',
      endTime: '2031-03-03T10:30:00+01:00',
      attendees: [{ email: 'A@B.nl', name: 'A' }],
      metadata: { enrollmentId: enrollment.toUpperCase() },
    };
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_CREATED', payload })).toEqual({
      kind: 'booked',
      occurredAt: null,
      externalId: 'new',
      previousExternalId: null,
      title: 'Demo',
      startsAt: '2031-03-03T09:00:00.000Z',
      endsAt: '2031-03-03T09:30:00.000Z',
      attendeeEmail: 'a@b.nl',
      attendeeName: 'A',
      joinUrl: null,
      enrollmentId: enrollment,
    });
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_RESCHEDULED', payload: { ...payload, rescheduleUid: 'old' } })).toMatchObject({
      kind: 'booked',
      previousExternalId: 'old',
    });
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_CREATED', payload: { ...payload, metadata: { enrollmentId: 'not-a-uuid' } } })).toMatchObject({
      enrollmentId: null,
    });
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_CANCELLED', payload: { uid: 'new' } })).toEqual({
      kind: 'cancelled',
      occurredAt: null,
      externalId: 'new',
    });
    // The envelope's createdAt dates the change (for ordering); a value that is not a timestamp is none.
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_CANCELLED', createdAt: '2031-03-01T10:00:00+01:00', payload: { uid: 'new' } })).toMatchObject({
      occurredAt: '2031-03-01T09:00:00.000Z',
    });
    expect(calcomBookingEvent({ triggerEvent: 'BOOKING_CREATED', createdAt: 'yesterday', payload })).toMatchObject({ occurredAt: null });
    expect(calcomBookingEvent({ triggerEvent: 'PING', payload: {} })).toMatchObject({ kind: 'ignored' });
    expect(() => calcomBookingEvent({ triggerEvent: 'BOOKING_CREATED', payload: { uid: 'x', title: 'x', startTime: 'soon', endTime: 'later' } })).toThrow(
      BookingShapeError,
    );
    expect(() => calcomBookingEvent([1, 2])).toThrow(BookingShapeError);
  });
  test('Calendly: created (utm_content, old_invitee), canceled; the cancel half of a reschedule is ignored', () => {
    const payload = {
      uri: 'https://api.calendly.com/scheduled_events/E/invitees/2',
      email: 'jan@x.nl',
      name: 'Jan',
      old_invitee: 'https://api.calendly.com/scheduled_events/D/invitees/1',
      scheduled_event: {
        name: 'Demo',
        start_time: '2031-03-03T09:00:00.000000Z',
        end_time: '2031-03-03T09:30:00.000000Z',
        location: { join_url: 'https://zoom.example/j/1' },
      },
      tracking: { utm_content: enrollment },
    };
    expect(calendlyBookingEvent({ event: 'invitee.created', payload })).toMatchObject({
      kind: 'booked',
      externalId: payload.uri,
      previousExternalId: payload.old_invitee,
      enrollmentId: enrollment,
      joinUrl: 'https://zoom.example/j/1',
      startsAt: '2031-03-03T09:00:00.000Z',
    });
    expect(calendlyBookingEvent({ event: 'invitee.canceled', payload: { uri: payload.uri, rescheduled: false } })).toEqual({
      kind: 'cancelled',
      occurredAt: null,
      externalId: payload.uri,
    });
    expect(calendlyBookingEvent({ event: 'invitee.created', created_at: '2031-03-01T09:00:00.000000Z', payload })).toMatchObject({
      occurredAt: '2031-03-01T09:00:00.000Z',
    });
    expect(calendlyBookingEvent({ event: 'invitee.canceled', payload: { uri: payload.uri, rescheduled: true } })).toMatchObject({ kind: 'ignored' });
    expect(() => calendlyBookingEvent({ event: 'invitee.created', payload: { uri: 'nope' } })).toThrow(BookingShapeError);
  });
});

test('reminder time and texts are deterministic', () => {
  const startsAt = new Date('2031-03-03T09:00:00Z');
  expect(reminderAt(startsAt, 1440).toISOString()).toBe('2031-03-02T09:00:00.000Z');
  const input = {
    title: 'Demo',
    startsAt,
    endsAt: new Date('2031-03-03T09:30:00Z'),
    joinUrl: 'https://meet.example/x',
    contactName: 'Jan Jansen',
    companyName: 'Jansen B.V.',
    timezone: 'Europe/Amsterdam',
    locale: 'nl-NL',
  };
  expect(reminderEmail(input)).toEqual({
    subject: 'Herinnering: Demo',
    body: 'Beste Jan Jansen,\n\nGraag herinner ik u aan onze afspraak "Demo" op maandag 3 maart 2031, 10:00–10:30 (Europe/Amsterdam).\nU kunt deelnemen via https://meet.example/x\n\nTot dan!',
  });
  expect(reminderEmail({ ...input, locale: 'en-GB', joinUrl: null }).subject).toBe('Reminder: Demo');
  expect(reminderTask(input)).toEqual({
    title: 'Prepare: Demo with Jan Jansen, Jansen B.V.',
    body: 'Meeting "Demo" with Jan Jansen, Jansen B.V. on Monday 3 March 2031, 10:00–10:30 (Europe/Amsterdam).\nJoin: https://meet.example/x',
  });
});

import { DateTime } from 'luxon';
import { addBusinessDays, localDay, SendingCalendar } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { sendTimeCheck, SentState } from '../../domain/sending/send-check';
import { nextSendSlot, SendPolicy, SlotState } from '../../domain/sending/slots';

/** Business days and send slots: pure functions, in the mailbox's time zone (luxon), holidays passed in. */
const AMS = 'Europe/Amsterdam';
const NL = publicHolidays('NL', null, { from: 2026, to: 2028 });
const calendar = (over: Partial<SendingCalendar> = {}): SendingCalendar => ({
  timezone: AMS,
  window: { start: '09:00', end: '17:00' },
  sendingDays: [1, 2, 3, 4, 5],
  holidays: NL,
  ...over,
});
const policy = (over: Partial<SendPolicy> = {}): SendPolicy => ({ ...calendar(), dailyCap: 30, minGapSeconds: 120, ...over });
const empty: SlotState = { reservationsByLocalDay: new Map(), lastSlotAt: null };
/** A local wall-clock time in a zone, as a Date. */
const local = (iso: string, zone = AMS) => DateTime.fromISO(iso, { zone }).toJSDate();
/** A Date as the zone's wall clock with its offset, to compare readably. */
const wall = (d: Date, zone = AMS) => DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true });

describe('public holidays (date-holidays, type public)', () => {
  test('the Dutch set has Koningsdag, Kerst and Tweede Kerstdag, and no observances', () => {
    expect(NL.has('2027-04-27')).toBe(true);
    expect(NL.has('2027-12-25')).toBe(true);
    expect(NL.has('2027-12-26')).toBe(true);
    expect(NL.has('2027-04-26')).toBe(false);
    const us = publicHolidays('US', null, { from: 2027, to: 2027 });
    expect(us.has('2027-07-05')).toBe(true); // Independence Day (substitute day)
    expect(us.has('2027-05-09')).toBe(false); // Mother's Day is an observance
    expect(publicHolidays('DE', 'BY', { from: 2027, to: 2027 }).has('2027-05-27')).toBe(true); // Fronleichnam, Bavaria
    expect(publicHolidays('DE', null, { from: 2027, to: 2027 }).has('2027-05-27')).toBe(false);
  });
});

describe('addBusinessDays', () => {
  test('skips weekends and keeps the local time of day', () => {
    // Friday 2027-04-09 10:15 + 1 business day = Monday 12 April 10:15.
    expect(wall(addBusinessDays(local('2027-04-09T10:15'), 1, calendar()))).toBe('2027-04-12T10:15:00+02:00');
    expect(wall(addBusinessDays(local('2027-04-09T10:15'), 5, calendar()))).toBe('2027-04-16T10:15:00+02:00');
    expect(addBusinessDays(local('2027-04-10T10:15'), 0, calendar())).toEqual(local('2027-04-10T10:15'));
  });

  test('skips Koningsdag (27 April) and Kerst (25 and 26 December)', () => {
    // Monday 26 April 2027 + 1 = Wednesday 28 April.
    expect(wall(addBusinessDays(local('2027-04-26T09:00'), 1, calendar()))).toBe('2027-04-28T09:00:00+02:00');
    // Thursday 23 December 2027 + 1 = Friday 24; + 2 = Monday 27 (Christmas falls on the weekend in 2027).
    expect(wall(addBusinessDays(local('2027-12-23T09:00'), 2, calendar()))).toBe('2027-12-27T09:00:00+01:00');
    // 2026: Kerst is Friday 25, Tweede Kerstdag Saturday: Thursday 24 + 1 = Monday 28.
    expect(wall(addBusinessDays(local('2026-12-24T11:00'), 1, calendar()))).toBe('2026-12-28T11:00:00+01:00');
    // Without the holidays the same call answers the holiday itself.
    expect(wall(addBusinessDays(local('2027-04-26T09:00'), 1, calendar({ holidays: [] })))).toBe('2027-04-27T09:00:00+02:00');
  });

  test('keeps the wall-clock time across DST changes (last Sunday of March and October)', () => {
    // Friday 26 March 2027 (CET, +01:00) + 1 = Monday 29 March... Tweede Paasdag, so Tuesday 30 March, CEST.
    expect(wall(addBusinessDays(local('2027-03-26T10:00'), 1, calendar()))).toBe('2027-03-30T10:00:00+02:00');
    // Friday 29 October 2027 (CEST) + 1 = Monday 1 November, CET.
    expect(wall(addBusinessDays(local('2027-10-29T10:00'), 1, calendar()))).toBe('2027-11-01T10:00:00+01:00');
    // A time that does not exist on the target day (02:30 on 28 March 2027) moves forward by the gap.
    const everyDay = calendar({ sendingDays: [1, 2, 3, 4, 5, 6, 7], holidays: [] });
    expect(wall(addBusinessDays(local('2027-03-27T02:30'), 1, everyDay))).toBe('2027-03-28T03:30:00+02:00');
  });

  test('refuses a negative or fractional count', () => {
    expect(() => addBusinessDays(new Date(), -1, calendar())).toThrow(RangeError);
    expect(() => addBusinessDays(new Date(), 1.5, calendar())).toThrow(RangeError);
  });
});

describe('nextSendSlot', () => {
  test('inside the window: now; before it: the opening; after it: the next business day opening', () => {
    expect(wall(nextSendSlot(local('2027-04-13T11:07:30'), policy(), empty))).toBe('2027-04-13T11:07:30+02:00');
    expect(wall(nextSendSlot(local('2027-04-13T06:00'), policy(), empty))).toBe('2027-04-13T09:00:00+02:00');
    expect(wall(nextSendSlot(local('2027-04-13T17:00'), policy(), empty))).toBe('2027-04-14T09:00:00+02:00');
  });

  test('weekends wait for Monday', () => {
    expect(wall(nextSendSlot(local('2027-04-09T18:00'), policy(), empty))).toBe('2027-04-12T09:00:00+02:00'); // Friday evening
    expect(wall(nextSendSlot(local('2027-04-10T12:00'), policy(), empty))).toBe('2027-04-12T09:00:00+02:00'); // Saturday noon
  });

  test('Koningsdag and Kerst are skipped', () => {
    expect(wall(nextSendSlot(local('2027-04-27T10:00'), policy(), empty))).toBe('2027-04-28T09:00:00+02:00');
    expect(wall(nextSendSlot(local('2026-12-24T17:30'), policy(), empty))).toBe('2026-12-28T09:00:00+01:00');
  });

  test('minGapSeconds after the previous send or reservation, also across the window close', () => {
    const state = (last: string): SlotState => ({ reservationsByLocalDay: new Map([['2027-04-13', 3]]), lastSlotAt: local(last) });
    expect(wall(nextSendSlot(local('2027-04-13T10:00'), policy(), state('2027-04-13T09:59')))).toBe('2027-04-13T10:01:00+02:00');
    expect(wall(nextSendSlot(local('2027-04-13T10:00'), policy(), state('2027-04-13T09:50')))).toBe('2027-04-13T10:00:00+02:00');
    expect(wall(nextSendSlot(local('2027-04-13T16:58'), policy(), state('2027-04-13T16:59')))).toBe('2027-04-14T09:00:00+02:00');
    // A reservation already booked for a later day: the next one comes after it.
    expect(wall(nextSendSlot(local('2027-04-13T10:00'), policy({ minGapSeconds: 600 }), state('2027-04-14T09:00')))).toBe('2027-04-14T09:10:00+02:00');
  });

  test('a full day (dailyCap reservations) rolls over to the next business day, past holidays', () => {
    const full: SlotState = { reservationsByLocalDay: { '2027-04-26': 30 }, lastSlotAt: local('2027-04-26T09:58') };
    // Monday 26 April full, Tuesday 27 Koningsdag: Wednesday 28 at the opening.
    expect(wall(nextSendSlot(local('2027-04-26T10:00'), policy(), full))).toBe('2027-04-28T09:00:00+02:00');
    const oneLeft: SlotState = { reservationsByLocalDay: { '2027-04-26': 29 }, lastSlotAt: local('2027-04-26T09:56') };
    expect(wall(nextSendSlot(local('2027-04-26T09:30'), policy(), oneLeft))).toBe('2027-04-26T09:58:00+02:00');
    // The next day may be full too.
    const twoFull: SlotState = {
      reservationsByLocalDay: new Map([
        ['2027-04-13', 2],
        ['2027-04-14', 2],
      ]),
      lastSlotAt: null,
    };
    expect(wall(nextSendSlot(local('2027-04-13T12:00'), policy({ dailyCap: 2 }), twoFull))).toBe('2027-04-15T09:00:00+02:00');
  });

  test('a window ending at 24:00 sends until midnight; the day after opens at its start', () => {
    const late = policy({ window: { start: '18:00', end: '24:00' } });
    expect(wall(nextSendSlot(local('2027-04-13T23:59:30'), late, empty))).toBe('2027-04-13T23:59:30+02:00');
    expect(wall(nextSendSlot(local('2027-04-13T12:00'), late, empty))).toBe('2027-04-13T18:00:00+02:00');
    expect(wall(nextSendSlot(local('2027-04-14T00:00'), late, empty))).toBe('2027-04-14T18:00:00+02:00');
    // The gap pushes past midnight into Saturday: Monday's window.
    const friday: SlotState = { reservationsByLocalDay: {}, lastSlotAt: local('2027-04-16T23:59') };
    expect(wall(nextSendSlot(local('2027-04-16T23:59'), late, friday))).toBe('2027-04-19T18:00:00+02:00');
  });

  test('DST: 09:00-17:00 on the change days is 09:00 local, at the new offset', () => {
    const everyDay = policy({ sendingDays: [1, 2, 3, 4, 5, 6, 7], holidays: [] });
    // Sunday 28 March 2027 (clocks 02:00 -> 03:00): opens 09:00 CEST = 07:00 UTC.
    const spring = nextSendSlot(local('2027-03-28T00:30'), everyDay, empty);
    expect(spring.toISOString()).toBe('2027-03-28T07:00:00.000Z');
    // Sunday 31 October 2027 (clocks 03:00 -> 02:00): opens 09:00 CET = 08:00 UTC; closes 17:00 CET.
    expect(nextSendSlot(local('2027-10-31T01:00'), everyDay, empty).toISOString()).toBe('2027-10-31T08:00:00.000Z');
    expect(nextSendSlot(new Date('2027-10-31T16:01:00Z'), everyDay, empty).toISOString()).toBe('2027-11-01T08:00:00.000Z');
    expect(nextSendSlot(new Date('2027-10-31T15:59:00Z'), everyDay, empty).toISOString()).toBe('2027-10-31T15:59:00.000Z');
  });

  test('DST: a window opening at 02:30 inside the skipped hour opens at 03:30 CEST that day', () => {
    const night = policy({ window: { start: '02:30', end: '05:00' }, sendingDays: [1, 2, 3, 4, 5, 6, 7], holidays: [] });
    expect(wall(nextSendSlot(local('2027-03-28T00:00'), night, empty))).toBe('2027-03-28T03:30:00+02:00');
    expect(nextSendSlot(local('2027-03-28T00:00'), night, empty).toISOString()).toBe('2027-03-28T01:30:00.000Z');
    // The day before and after: 02:30 at their own offsets.
    expect(wall(nextSendSlot(local('2027-03-27T00:00'), night, empty))).toBe('2027-03-27T02:30:00+01:00');
    expect(wall(nextSendSlot(local('2027-03-28T06:00'), night, empty))).toBe('2027-03-29T02:30:00+02:00');
    // In October 02:30 happens twice; the window opens at the first.
    expect(nextSendSlot(local('2027-10-31T00:00'), night, empty).toISOString()).toBe('2027-10-31T00:30:00.000Z');
  });

  test('a mailbox in another zone (America/New_York) uses its own window, days and DST date', () => {
    const ny = policy({ timezone: 'America/New_York', holidays: publicHolidays('US', null, { from: 2027, to: 2027 }) });
    // 15:30 UTC Friday 16 April 2027 = 11:30 EDT: inside the window.
    expect(nextSendSlot(new Date('2027-04-16T15:30:00Z'), ny, empty).toISOString()).toBe('2027-04-16T15:30:00.000Z');
    // 22:00 UTC Friday = 18:00 EDT: Monday 09:00 EDT = 13:00 UTC.
    expect(nextSendSlot(new Date('2027-04-16T22:00:00Z'), ny, empty).toISOString()).toBe('2027-04-19T13:00:00.000Z');
    // US DST began 14 March 2027, Europe's on 28 March: on Monday 15 March 09:00 New York is 13:00 UTC.
    expect(nextSendSlot(new Date('2027-03-15T05:00:00Z'), ny, empty).toISOString()).toBe('2027-03-15T13:00:00.000Z');
    // Independence Day observed on Monday 5 July 2027.
    expect(wall(nextSendSlot(new Date('2027-07-05T14:00:00Z'), ny, empty), 'America/New_York')).toBe('2027-07-06T09:00:00-04:00');
    // The local day of a reservation is New York's.
    expect(localDay(new Date('2027-04-17T02:00:00Z'), 'America/New_York')).toBe('2027-04-16');
  });

  test('refuses a window that ends before it starts, and a calendar with no business day', () => {
    expect(() => nextSendSlot(new Date(), policy({ window: { start: '17:00', end: '09:00' } }), empty)).toThrow(RangeError);
    expect(() => nextSendSlot(new Date(), policy({ window: { start: '9:00', end: '17:00' } }), empty)).toThrow(RangeError);
    expect(() => nextSendSlot(new Date(), policy({ sendingDays: [] }), empty)).toThrow(RangeError);
  });
});

describe('sendTimeCheck: the last look at the moment of sending', () => {
  const none: SentState = { goneOutOnDay: 0, lastSendAt: null };
  const moment = (nowIso: string, slotIso = nowIso, zone = AMS) => ({
    now: local(nowIso, zone),
    slotAt: local(slotIso, zone),
    slotLocalDay: slotIso.slice(0, 10),
    graceSeconds: 300,
  });

  test('inside the window, at its slot, under the cap and after the gap: go', () => {
    expect(sendTimeCheck(moment('2027-04-08T10:00'), policy(), none)).toEqual({ go: true });
    expect(sendTimeCheck(moment('2027-04-08T10:04', '2027-04-08T10:00'), policy(), { goneOutOnDay: 29, lastSendAt: local('2027-04-08T10:02') })).toEqual({
      go: true,
    });
  });

  test('a timer that fires after the window closes does not send (the 21:00 burst)', () => {
    const v = sendTimeCheck(moment('2027-04-08T21:00', '2027-04-08T16:50'), policy(), none);
    expect(v).toMatchObject({ go: false, reason: expect.stringContaining('slot passed') });
    // Within the grace of its slot but past the window's close: still no.
    expect(sendTimeCheck(moment('2027-04-08T17:02', '2027-04-08T16:59'), policy(), none)).toMatchObject({
      go: false,
      reason: expect.stringContaining('window'),
    });
  });

  test('late beyond the grace, early, or on another local day than the reservation: no', () => {
    expect(sendTimeCheck(moment('2027-04-08T10:06', '2027-04-08T10:00'), policy(), none).go).toBe(false);
    expect(sendTimeCheck(moment('2027-04-08T09:54', '2027-04-08T10:00'), policy(), none).go).toBe(false);
    // Open around the clock: a slot at 23:58 sent at 00:01 would count against the wrong day.
    const always = policy({ window: { start: '00:00', end: '24:00' }, sendingDays: [1, 2, 3, 4, 5, 6, 7], holidays: [] });
    expect(sendTimeCheck(moment('2027-04-09T00:01', '2027-04-08T23:58'), always, none)).toMatchObject({
      go: false,
      reason: expect.stringContaining('local day'),
    });
  });

  test('a weekend or a public holiday: no', () => {
    expect(sendTimeCheck(moment('2027-04-10T10:00'), policy(), none).go).toBe(false); // Saturday
    expect(sendTimeCheck(moment('2027-04-27T10:00'), policy(), none)).toMatchObject({ go: false, reason: expect.stringContaining('holiday') }); // Koningsdag
  });

  test('the day’s cap counts what went out; the gap counts from the last send', () => {
    expect(sendTimeCheck(moment('2027-04-08T10:00'), policy(), { goneOutOnDay: 30, lastSendAt: null })).toMatchObject({
      go: false,
      reason: expect.stringContaining('cap'),
    });
    expect(sendTimeCheck(moment('2027-04-08T10:00'), policy(), { goneOutOnDay: 0, lastSendAt: local('2027-04-08T09:59') })).toMatchObject({
      go: false,
      reason: expect.stringContaining('after the last send'),
    });
    // A gap of 0 asks for none, even when another worker's claim carries a clock a moment ahead.
    expect(sendTimeCheck(moment('2027-04-08T10:00'), policy({ minGapSeconds: 0 }), { goneOutOnDay: 0, lastSendAt: local('2027-04-08T10:00:01') })).toEqual({
      go: true,
    });
  });

  test('DST: the spring gap and the autumn repeat read the window as nextSendSlot does', () => {
    // 2027-03-28: 02:00-03:00 does not exist in Amsterdam. A window 02:30-03:00 lies wholly in the gap: never open.
    const gap = policy({ window: { start: '02:30', end: '03:00' }, sendingDays: [7], holidays: [] });
    expect(sendTimeCheck(moment('2027-03-28T03:30'), gap, none).go).toBe(false);
    // A 09:00-17:00 window on the spring day is 09:00+02:00 to 17:00+02:00.
    const sunday = policy({ sendingDays: [7], holidays: [] });
    expect(sendTimeCheck(moment('2027-03-28T09:00'), sunday, none).go).toBe(true);
    expect(sendTimeCheck(moment('2027-03-28T08:59', '2027-03-28T09:00'), sunday, none).go).toBe(false);
    // 2027-10-31: 02:00-03:00 happens twice. A window opening at 02:30 opens at its first occurrence (+02:00).
    const autumn = policy({ window: { start: '02:30', end: '05:00' }, sendingDays: [7], holidays: [] });
    const first = DateTime.fromISO('2027-10-31T02:35+02:00').toJSDate();
    expect(sendTimeCheck({ now: first, slotAt: first, slotLocalDay: '2027-10-31', graceSeconds: 300 }, autumn, none).go).toBe(true);
    const before = DateTime.fromISO('2027-10-31T02:25+02:00').toJSDate();
    expect(sendTimeCheck({ now: before, slotAt: before, slotLocalDay: '2027-10-31', graceSeconds: 300 }, autumn, none).go).toBe(false);
  });

  test('New York: the day and the window are the mailbox’s, not UTC’s', () => {
    const ny = policy({ timezone: 'America/New_York', holidays: [] });
    // 2027-04-08 16:30 New York is 20:30 UTC, and 2027-04-08 20:30 in New York is the next UTC day.
    expect(sendTimeCheck(moment('2027-04-08T16:30', '2027-04-08T16:30', 'America/New_York'), ny, none).go).toBe(true);
    expect(sendTimeCheck(moment('2027-04-08T20:30', '2027-04-08T20:30', 'America/New_York'), ny, none).go).toBe(false);
  });
});

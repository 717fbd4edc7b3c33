import { DateTime } from 'luxon';
import { localDay, SendingCalendar } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { capOn, sendingDaysSince } from '../../domain/sending/ramp-up';
import { choosePoolMailbox, gapSeconds, poolChoiceHolds, PoolCandidate, poolTryOrder } from '../../domain/sending/pools';
import { DEFAULT_PROTECTION, healthTransition, protectionVerdict, sevenDayStats } from '../../domain/sending/protection';
import { countryZone, recipientZone, sendingCalendarFor, zonesDiffer } from '../../domain/sending/recipient-time';
import { nextSendSlot } from '../../domain/sending/slots';

/** Pools, ramp-up, protection and recipient time: pure functions of domain/sending, the clock an input. */
const AMS = 'Europe/Amsterdam';
const NY = 'America/New_York';
const NL = publicHolidays('NL', null, { from: 2026, to: 2028 });
const US = publicHolidays('US', null, { from: 2026, to: 2028 });
const calendar = (over: Partial<SendingCalendar> = {}): SendingCalendar => ({
  timezone: AMS,
  window: { start: '09:00', end: '17:00' },
  sendingDays: [1, 2, 3, 4, 5],
  holidays: NL,
  ...over,
});
const wall = (d: Date, zone = AMS) => DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true });

describe('ramp-up: min(dailyCap, startCap + dailyIncrease × sending days since startsOn)', () => {
  const ramp = { startCap: 2, dailyIncrease: 1, startsOn: '2027-03-01' }; // a Monday
  test('start 2 + 1 a day gives 2, 3, 4 over three sending days', () => {
    expect(['2027-03-01', '2027-03-02', '2027-03-03'].map((d) => capOn(d, 30, ramp, calendar()))).toEqual([2, 3, 4]);
  });
  test('weekends and holidays are not sending days; the cap never passes dailyCap', () => {
    // Fri 5 March is n=4 (cap 6); Sat and Sun do not count: Mon 8 March is n=5 (cap 7).
    expect(capOn('2027-03-05', 30, ramp, calendar())).toBe(6);
    expect(capOn('2027-03-08', 30, ramp, calendar())).toBe(7);
    // Koningsdag (Tue 27 April 2027) is no sending day: Wed 28 counts one day less than without it.
    const april = { ...ramp, startsOn: '2027-04-26' };
    expect(capOn('2027-04-28', 30, april, calendar())).toBe(3);
    expect(capOn('2027-04-28', 30, april, calendar({ holidays: [] }))).toBe(4);
    expect(capOn('2027-12-01', 5, ramp, calendar())).toBe(5);
    expect(capOn('2030-01-01', 500, { startCap: 1, dailyIncrease: 100, startsOn: '2020-01-01' }, calendar())).toBe(500);
  });
  test('before startsOn, with no increase, or without a ramp', () => {
    expect(capOn('2027-02-01', 30, ramp, calendar())).toBe(2);
    expect(capOn('2027-06-01', 30, { ...ramp, dailyIncrease: 0 }, calendar())).toBe(2);
    expect(capOn('2027-06-01', 30, null, calendar())).toBe(30);
    expect(capOn('2027-03-01', 10, { ...ramp, startCap: 40 }, calendar())).toBe(10);
    expect(sendingDaysSince('2027-02-27', '2027-03-01', calendar())).toBe(0); // a Saturday start: Monday is the first sending day
  });
});

describe('pool choice: most capacity left today; ties least recently sent', () => {
  const c = (id: string, capToday: number, bookedToday: number, lastSlotAt: string | null = null, usable = true): PoolCandidate => ({
    id,
    usable,
    capToday,
    bookedToday,
    lastSlotAt: lastSlotAt ? new Date(lastSlotAt) : null,
  });
  test('the mailbox with most left wins; paused or unsendable ones never', () => {
    expect(choosePoolMailbox([c('a', 2, 1), c('b', 3, 1), c('c', 30, 0, null, false)])).toBe('b');
    expect(choosePoolMailbox([c('a', 2, 2, '2027-03-01T10:00:00Z'), c('b', 2, 2, '2027-03-01T09:00:00Z')])).toBe('b');
    expect(choosePoolMailbox([c('a', 2, 0, '2027-03-01T10:00:00Z'), c('b', 2, 0)])).toBe('b');
    expect(choosePoolMailbox([c('a', 2, 0, null, false)])).toBeNull();
    expect(choosePoolMailbox([])).toBeNull();
  });

  test('3 mailboxes with caps 2, 2, 3 and 10 contacts: 7 today spread 2/2/3, the other 3 the next sending day', () => {
    const now = DateTime.fromISO('2027-03-01T09:00', { zone: AMS }).toJSDate(); // Monday
    const caps: Record<string, number> = { a: 2, b: 2, c: 3 };
    const booked: Record<string, Date[]> = { a: [], b: [], c: [] };
    for (let i = 0; i < 10; i++) {
      const today = localDay(now, AMS);
      const candidates = Object.keys(caps).map((id) => ({
        id,
        usable: true,
        capToday: caps[id]!,
        bookedToday: booked[id]!.filter((d) => localDay(d, AMS) === today).length,
        lastSlotAt: booked[id]!.at(-1) ?? null,
      }));
      const id = choosePoolMailbox(candidates)!;
      const perDay = new Map<string, number>();
      for (const d of booked[id]!) perDay.set(localDay(d, AMS), (perDay.get(localDay(d, AMS)) ?? 0) + 1);
      booked[id]!.push(
        nextSendSlot(
          now,
          { ...calendar(), dailyCap: caps[id]!, minGapSeconds: 120 },
          { reservationsByLocalDay: perDay, lastSlotAt: booked[id]!.at(-1) ?? null },
        ),
      );
    }
    const on = (id: string, day: string) => booked[id]!.filter((d) => localDay(d, AMS) === day).length;
    expect(['a', 'b', 'c'].map((id) => on(id, '2027-03-01'))).toEqual([2, 2, 3]);
    expect(['a', 'b', 'c'].map((id) => on(id, '2027-03-02')).reduce((x, y) => x + y)).toBe(3);
  });

  test('try order for concurrent bookers: the usable mailboxes with most left today, best first (its head is the choice)', () => {
    const pool = [c('a', 3, 1), c('b', 3, 0, '2027-03-01T09:00:00Z'), c('c', 3, 0), c('d', 4, 1, '2027-03-01T08:00:00Z'), c('e', 9, 0, null, false)];
    expect(poolTryOrder(pool)).toEqual(['c', 'd', 'b']);
    expect(poolTryOrder(pool)[0]).toBe(choosePoolMailbox(pool));
    expect(poolTryOrder([c('a', 2, 2, '2027-03-01T10:00:00Z'), c('b', 2, 3, '2027-03-01T09:00:00Z')])).toEqual(['b', 'a']); // all full: least recent first
    expect(poolTryOrder([c('a', 2, 0, null, false)])).toEqual([]);
  });

  test('a locked choice holds unless another mailbox has more left, or as much and ranks before it without being locked by another booker', () => {
    const fresh = [c('a', 3, 1), c('b', 3, 1, '2027-03-01T09:00:00Z'), c('c', 3, 2), c('z', 9, 0, null, false)];
    expect(poolChoiceHolds('a', fresh, [])).toBe(true);
    expect(poolChoiceHolds('b', fresh, [])).toBe(false); // a: as much left, never sent
    expect(poolChoiceHolds('b', fresh, ['a'])).toBe(true); // a is being booked by another booker
    expect(poolChoiceHolds('c', fresh, ['a', 'b'])).toBe(false); // less left: capacity is never traded away
    expect(poolChoiceHolds('z', fresh, [])).toBe(false); // not usable
    expect(poolChoiceHolds('gone', fresh, [])).toBe(false);
    // Full under the lock while another has room: choose again.
    expect(poolChoiceHolds('a', [c('a', 2, 2), c('b', 1, 0, '2027-03-01T09:00:00Z')], [])).toBe(false);
  });

  test('gap jitter: minGap plus a drawn share of the jitter, never more', () => {
    expect(gapSeconds(120, 0, 0.99)).toBe(120);
    expect(gapSeconds(120, 900, 0)).toBe(120);
    expect(gapSeconds(120, 900, 0.999999)).toBe(1020);
    expect(gapSeconds(120, 900, 0.5)).toBe(570);
    expect(() => gapSeconds(120, 900, 1)).toThrow(RangeError);
  });
});

describe('protection: a bounce or complaint over the limit pauses once the sample is large enough', () => {
  test('rates and verdicts at the defaults 2 %, 0.1 %, 20', () => {
    expect(sevenDayStats({ sent: 40, hardBounces: 2, complaints: 0, blocks: 1 })).toEqual({
      sent: 40,
      hard_bounces: 2,
      complaints: 0,
      bounce_rate: 0.05,
      complaint_rate: 0,
      blocks: 1,
      block_rate: 0.025,
    });
    expect(sevenDayStats({ sent: 0, hardBounces: 0, complaints: 0, blocks: 0 }).bounce_rate).toBe(0);
    expect(protectionVerdict('bounce', { sent: 19, hardBounces: 10, complaints: 0, blocks: 0 }, DEFAULT_PROTECTION)).toBeNull(); // below minSample
    expect(protectionVerdict('bounce', { sent: 100, hardBounces: 2, complaints: 0, blocks: 0 }, DEFAULT_PROTECTION)).toBeNull(); // 2 % is not above 2 %
    expect(protectionVerdict('bounce', { sent: 100, hardBounces: 3, complaints: 0, blocks: 0 }, DEFAULT_PROTECTION)).toBe('bounce_rate');
    expect(protectionVerdict('complaint', { sent: 100, hardBounces: 50, complaints: 0, blocks: 0 }, DEFAULT_PROTECTION)).toBeNull();
    expect(protectionVerdict('complaint', { sent: 100, hardBounces: 0, complaints: 1, blocks: 0 }, DEFAULT_PROTECTION)).toBe('complaint_rate');
    expect(protectionVerdict('block', { sent: 100, hardBounces: 0, complaints: 0, blocks: 5 }, DEFAULT_PROTECTION)).toBeNull(); // 5 % is not above 5 %
    expect(protectionVerdict('block', { sent: 100, hardBounces: 0, complaints: 0, blocks: 6 }, DEFAULT_PROTECTION)).toBe('block_rate');
    expect(protectionVerdict('complaint', { sent: 1000, hardBounces: 0, complaints: 1, blocks: 0 }, DEFAULT_PROTECTION)).toBeNull();
  });
  test('health: unsendable pauses an active mailbox, sendable resumes only a health pause', () => {
    expect(healthTransition('active', null, false)).toBe('pause');
    expect(healthTransition('paused', 'manual', false)).toBeNull();
    expect(healthTransition('paused', 'health', true)).toBe('resume');
    expect(healthTransition('paused', 'bounce_rate', true)).toBeNull();
    expect(healthTransition('active', null, true)).toBeNull();
  });
});

describe("recipient time: the recipient's zone and holidays", () => {
  test('contact, then company, then a one-zone country, then the mailbox', () => {
    expect(recipientZone({ contactTimezone: NY, companyTimezone: 'Europe/London', companyCountry: 'NL' }, AMS)).toEqual({ zone: NY, source: 'contact' });
    expect(recipientZone({ contactTimezone: null, companyTimezone: 'Europe/London', companyCountry: 'NL' }, AMS)).toEqual({
      zone: 'Europe/London',
      source: 'company',
    });
    expect(recipientZone({ contactTimezone: null, companyTimezone: null, companyCountry: 'JP' }, AMS)).toEqual({ zone: 'Asia/Tokyo', source: 'country' });
    // The United States has many zones: the mailbox's stays.
    expect(recipientZone({ contactTimezone: null, companyTimezone: null, companyCountry: 'US' }, AMS)).toEqual({ zone: AMS, source: 'mailbox' });
    expect(countryZone('XX')).toBeNull();
    expect(countryZone('us')).toBeNull();
  });
  test("a New York contact gets a slot in New York's business hours from an Amsterdam mailbox, US holidays skipped", () => {
    const cal = sendingCalendarFor(calendar(), 'recipient', { zone: NY, holidays: US });
    // Monday 1 March 2027 16:00 in Amsterdam is 10:00 in New York: inside the window there.
    const now = DateTime.fromISO('2027-03-01T16:00', { zone: AMS }).toJSDate();
    const slot = nextSendSlot(now, { ...cal, dailyCap: 30, minGapSeconds: 0 }, { reservationsByLocalDay: {}, lastSlotAt: null });
    expect(wall(slot, NY)).toBe('2027-03-01T10:00:00-05:00');
    // 08:00 Amsterdam is 02:00 in New York: the slot waits for 09:00 there (15:00 in Amsterdam).
    const early = nextSendSlot(
      DateTime.fromISO('2027-03-01T08:00', { zone: AMS }).toJSDate(),
      { ...cal, dailyCap: 30, minGapSeconds: 0 },
      { reservationsByLocalDay: {}, lastSlotAt: null },
    );
    expect(wall(early, NY)).toBe('2027-03-01T09:00:00-05:00');
    // Independence Day observed (Mon 5 July 2027) is skipped in recipient time; Amsterdam time would send that day.
    const july = DateTime.fromISO('2027-07-05T10:00', { zone: NY }).toJSDate();
    expect(wall(nextSendSlot(july, { ...cal, dailyCap: 30, minGapSeconds: 0 }, { reservationsByLocalDay: {}, lastSlotAt: null }), NY)).toBe(
      '2027-07-06T09:00:00-04:00',
    );
    expect(sendingCalendarFor(calendar(), 'mailbox', { zone: NY, holidays: US }).timezone).toBe(AMS);
  });
  test('the strategist proposes recipient time only when offsets differ', () => {
    const at = new Date('2027-03-01T12:00:00Z');
    expect(zonesDiffer(AMS, [NY], at)).toBe(true);
    expect(zonesDiffer(AMS, ['Europe/Brussels', AMS], at)).toBe(false);
    expect(zonesDiffer(AMS, [], at)).toBe(false);
  });
});

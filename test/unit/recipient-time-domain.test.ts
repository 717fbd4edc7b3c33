import { DateTime } from 'luxon';
import { addBusinessDays } from '../../domain/sending/business-days';
import { publicHolidays } from '../../domain/sending/holidays';
import { proposeSendIn, recipientCountry, recipientPolicy } from '../../domain/sending/recipient-time';
import { sendTimeCheck } from '../../domain/sending/send-check';
import { capZoneOf, nextSendSlot, SendPolicy } from '../../domain/sending/slots';

/**
 * Sending in the recipient's time, pure: the window, sending days and holidays read in the
 * recipient's zone while the daily cap keeps counting the mailbox's own day (capTimezone).
 */
const AMS = 'Europe/Amsterdam';
const NY = 'America/New_York';
const NL = publicHolidays('NL', null, { from: 2026, to: 2027 });
const US = publicHolidays('US', null, { from: 2026, to: 2027 });
const mailbox = (over: Partial<SendPolicy> = {}): SendPolicy => ({
  timezone: AMS,
  window: { start: '09:00', end: '17:00' },
  sendingDays: [1, 2, 3, 4, 5],
  holidays: NL,
  dailyCap: 2,
  minGapSeconds: 0,
  ...over,
});
const inNewYork = (over: Partial<SendPolicy> = {}) => recipientPolicy(mailbox(over), 'recipient', { zone: NY, holidays: US });
const local = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toJSDate();
const wall = (d: Date, zone: string) => DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true });
const none = { reservationsByLocalDay: {}, lastSlotAt: null };

describe('recipientPolicy: the window in the recipient zone, the cap day in the mailbox zone', () => {
  test("sendIn recipient: window, days and holidays the recipient's, capTimezone the mailbox's; sendIn mailbox: unchanged", () => {
    const p = inNewYork();
    expect(p).toMatchObject({ timezone: NY, capTimezone: AMS, holidays: US, window: { start: '09:00', end: '17:00' }, dailyCap: 2 });
    expect(capZoneOf(p)).toBe(AMS);
    const same = recipientPolicy(mailbox(), 'mailbox', { zone: NY, holidays: US });
    expect(same).toMatchObject({ timezone: AMS, holidays: NL });
    expect(capZoneOf(same)).toBe(AMS);
    // Without a recipient country the mailbox's holidays stay.
    expect(recipientPolicy(mailbox(), 'recipient', { zone: NY, holidays: null }).holidays).toBe(NL);
  });

  test("the recipient country: the one its given zone says (the company's when the zone is one of its), else the company's, else the zone's one country", () => {
    const place = { contactTimezone: NY, companyTimezone: null, companyCountry: null };
    expect(recipientCountry(place, NY)).toBe('US');
    // A contact in New York at a Dutch (or Canadian) company is in the United States.
    expect(recipientCountry({ ...place, companyCountry: 'NL' }, NY)).toBe('US');
    expect(recipientCountry({ ...place, companyCountry: 'CA' }, NY)).toBe('US');
    // A zone several countries share keeps the company's country when it is one of them.
    expect(recipientCountry({ contactTimezone: null, companyTimezone: 'Europe/Berlin', companyCountry: 'SE' }, 'Europe/Berlin')).toBe('SE');
    // Europe/London is shared by GB, GG, IM and JE: no single country.
    expect(recipientCountry(place, 'Europe/London')).toBeNull();
    // A zone only inferred (the company's country, or the mailbox's zone) says nothing against the company's country.
    expect(recipientCountry({ contactTimezone: null, companyTimezone: null, companyCountry: 'US' }, AMS)).toBe('US');
  });

  test("a New York slot in New York's business hours from an Amsterdam mailbox", () => {
    // Tuesday 24 November 2026, 08:00 in Amsterdam = 02:00 in New York: the slot is 09:00 New York (15:00 Amsterdam).
    const slot = nextSendSlot(local('2026-11-24T08:00', AMS), inNewYork(), none);
    expect(wall(slot, NY)).toBe('2026-11-24T09:00:00-05:00');
    // 18:00 in Amsterdam (mailbox window closed) is 12:00 in New York: still today.
    expect(wall(nextSendSlot(local('2026-11-24T18:00', AMS), inNewYork(), none), NY)).toBe('2026-11-24T12:00:00-05:00');
  });

  test('the cap counts the mailbox day, not the recipient day', () => {
    // A late New York window (09:00-24:00): 19:00 Tuesday in New York is 01:00 Wednesday in Amsterdam.
    const late = inNewYork({ window: { start: '09:00', end: '24:00' } });
    const now = local('2026-11-24T19:00', NY);
    // Amsterdam's Tuesday is full: the slot is now, on Amsterdam's Wednesday (New York's Tuesday would be full if counted there).
    expect(wall(nextSendSlot(now, late, { reservationsByLocalDay: { '2026-11-24': 2 }, lastSlotAt: null }), NY)).toBe('2026-11-24T19:00:00-05:00');
    // Amsterdam's Wednesday is full: the next slot opens when Amsterdam's Thursday begins, 18:00 Wednesday in New York.
    expect(wall(nextSendSlot(now, late, { reservationsByLocalDay: { '2026-11-25': 2 }, lastSlotAt: null }), NY)).toBe('2026-11-25T18:00:00-05:00');
  });

  test("the recipient country's holiday is skipped, the mailbox country's is not", () => {
    // Thanksgiving, Thursday 26 November 2026: a US holiday, not a Dutch one.
    const thanksgiving = local('2026-11-26T10:00', NY);
    expect(wall(nextSendSlot(thanksgiving, inNewYork(), none), NY)).toBe('2026-11-27T09:00:00-05:00');
    expect(wall(nextSendSlot(thanksgiving, mailbox(), none), AMS)).toBe('2026-11-26T16:00:00+01:00');
    // Koningsdag, Monday 27 April 2026: a Dutch holiday, a New York business day.
    const koningsdag = local('2026-04-27T10:00', NY);
    expect(wall(nextSendSlot(koningsdag, inNewYork(), none), NY)).toBe('2026-04-27T10:00:00-04:00');
    expect(wall(nextSendSlot(koningsdag, mailbox(), none), AMS)).toBe('2026-04-28T09:00:00+02:00');
  });

  test('the claim re-check reads the window in the recipient zone and the slot day in the mailbox zone', () => {
    const none = { goneOutOnDay: 0, lastSendAt: null };
    // 10:00 New York = 16:00 Amsterdam, booked for Amsterdam's Tuesday: go.
    const at10 = local('2026-11-24T10:00', NY);
    expect(sendTimeCheck({ now: at10, slotAt: at10, slotLocalDay: '2026-11-24', graceSeconds: 300 }, inNewYork(), none)).toEqual({ go: true });
    // 08:00 New York = 14:00 Amsterdam: inside the mailbox's window, outside the recipient's.
    const at8 = local('2026-11-24T08:00', NY);
    expect(sendTimeCheck({ now: at8, slotAt: at8, slotLocalDay: '2026-11-24', graceSeconds: 300 }, inNewYork(), none)).toMatchObject({
      go: false,
      reason: expect.stringContaining('outside the sending window'),
    });
    // 19:00 New York Tuesday, in a late window, counts against Amsterdam's Wednesday.
    const late = inNewYork({ window: { start: '09:00', end: '24:00' } });
    const at19 = local('2026-11-24T19:00', NY);
    expect(sendTimeCheck({ now: at19, slotAt: at19, slotLocalDay: '2026-11-25', graceSeconds: 300 }, late, none)).toEqual({ go: true });
    expect(sendTimeCheck({ now: at19, slotAt: at19, slotLocalDay: '2026-11-24', graceSeconds: 300 }, late, none)).toMatchObject({
      go: false,
      reason: expect.stringContaining('local day'),
    });
    expect(
      sendTimeCheck({ now: at19, slotAt: at19, slotLocalDay: '2026-11-25', graceSeconds: 300 }, late, { goneOutOnDay: 2, lastSendAt: null }),
    ).toMatchObject({ go: false, reason: expect.stringContaining('daily cap') });
  });

  test('step delays count the recipient business days', () => {
    // Wednesday 25 November 2026 10:00 New York + 1 business day: Friday (Thanksgiving skipped); in Amsterdam's calendar Thursday.
    const from = local('2026-11-25T10:00', NY);
    expect(wall(addBusinessDays(from, 1, inNewYork()), NY)).toBe('2026-11-27T10:00:00-05:00');
    expect(wall(addBusinessDays(from, 1, mailbox()), NY)).toBe('2026-11-26T10:00:00-05:00');
  });

  test('the strategist proposes recipient when a contact zone differs from a pool mailbox zone', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const nl = { contactTimezone: null, companyTimezone: null, companyCountry: 'NL' };
    expect(proposeSendIn([AMS], [nl, { ...nl, companyTimezone: 'Europe/Brussels' }], now)).toBe('mailbox');
    expect(proposeSendIn([AMS], [nl, { ...nl, contactTimezone: NY }], now)).toBe('recipient');
    // The United States has many zones and nothing else says which: the mailbox's zone, no difference.
    expect(proposeSendIn([AMS], [{ ...nl, companyCountry: 'US' }], now)).toBe('mailbox');
    expect(proposeSendIn([AMS, 'Europe/London'], [nl], now)).toBe('recipient');
    expect(proposeSendIn([], [{ ...nl, contactTimezone: NY }], now)).toBe('mailbox');
  });
});

import { DateTime } from 'luxon';
import { isBusinessDay, SendingCalendar } from './business-days';

/**
 * Ramp-up of a new mailbox: the cap in force on
 * a local day is min(dailyCap, startCap + dailyIncrease × n), n the mailbox's sending days (its
 * sending weekdays, holidays excluded) from startsOn up to but not including that day, so the first
 * sending day on or after startsOn has startCap. Days before startsOn have startCap. Pure: the day
 * is an input (the caller's clock), never read here.
 */
export interface RampUp {
  startCap: number;
  dailyIncrease: number;
  /** The local date (YYYY-MM-DD) the ramp starts. */
  startsOn: string;
}

export const RAMP_UP_LIMITS = { startCap: { min: 1, max: 500 }, dailyIncrease: { min: 0, max: 100 } } as const;

/** How many sending days lie in [startsOn, day): the ramp's n on `day` (both local dates YYYY-MM-DD). Stops counting at `enough`. */
export function sendingDaysSince(startsOn: string, day: string, calendar: SendingCalendar, enough = Number.POSITIVE_INFINITY): number {
  const from = DateTime.fromISO(startsOn, { zone: calendar.timezone });
  const to = DateTime.fromISO(day, { zone: calendar.timezone });
  if (!from.isValid || !to.isValid) throw new RangeError(`invalid date ${from.isValid ? day : startsOn}`);
  let n = 0;
  for (let d = from.startOf('day'); d < to.startOf('day') && n < enough; d = d.plus({ days: 1 })) {
    if (isBusinessDay(calendar, d)) n++;
  }
  return n;
}

/** The cap in force on a local day (YYYY-MM-DD): the daily cap, or the ramp's step when a ramp is set and has not reached it. */
export function capOn(day: string, dailyCap: number, rampUp: RampUp | null, calendar: SendingCalendar): number {
  if (!rampUp) return dailyCap;
  if (rampUp.startCap >= dailyCap) return dailyCap;
  if (rampUp.dailyIncrease <= 0) return rampUp.startCap;
  // The ramp reaches dailyCap after this many sending days: no need to count further.
  const enough = Math.ceil((dailyCap - rampUp.startCap) / rampUp.dailyIncrease);
  const n = sendingDaysSince(rampUp.startsOn, day, calendar, enough);
  return Math.min(dailyCap, rampUp.startCap + rampUp.dailyIncrease * n);
}

/** The analytics windows, in days (GET /analytics/outreach), and the learning loop's default. */
export const ANALYTICS_WINDOWS = [7, 30, 90, 180] as const;
export type AnalyticsWindow = (typeof ANALYTICS_WINDOWS)[number];
export const DEFAULT_ANALYTICS_WINDOW: AnalyticsWindow = 30;
export const DEFAULT_SUGGESTIONS_WINDOW = 180;

/** A ratio, or null when there is nothing to divide by (rounded to 4 decimals). */
export const rate = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

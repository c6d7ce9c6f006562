import type { LifecycleConfig } from './lifecycle-config';

const HOUR_MS = 3_600_000;

/**
 * Seed 001 §2.2.3: each base interval (1, 6, 24, 72, 168 h) × (1 − importance × 0.3), at least
 * 0.5 h. Importance 0.72 → ×0.784 → 0.784, 4.704, 18.816, 56.448, 131.712 h.
 */
export function reviewIntervalsHours(importance: number, config: LifecycleConfig): number[] {
  const { base_intervals_hours, importance_factor, min_interval_hours } = config.review;
  const factor = 1 - importance * importance_factor;
  return base_intervals_hours.map((h) => Math.max(min_interval_hours, h * factor));
}

/** The review timestamps, fixed at creation: `start + interval_i` for each interval (seed 001: "scheduled at creation, not on demand"). */
export function reviewSchedule(start: Date, importance: number, config: LifecycleConfig): Date[] {
  return reviewIntervalsHours(importance, config).map((h) => new Date(start.getTime() + Math.round(h * HOUR_MS)));
}

/** The first scheduled review strictly after `now`, or null when the schedule is used up. */
export function nextReviewAfter(schedule: readonly Date[], now: Date): Date | null {
  return schedule.find((at) => at.getTime() > now.getTime()) ?? null;
}

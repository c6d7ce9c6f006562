import type { MemoryLayer, MemoryPriority } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';
import { layerRank, nextLayer } from './layers';
import { effectiveStrengthDays, retentionAt } from './retention';
import { nextReviewAfter } from './review';

const HOUR_MS = 3_600_000;

/** The lifecycle fields of a memory that an access reads and writes. */
export interface RetentionState {
  importance_score: number;
  layer: MemoryLayer;
  priority: MemoryPriority;
  /** Retention at `retention_at` (the anchor of the curve), 0..1. */
  current_retention: number;
  retention_at: Date;
  /** S of the memory's layer in days (× the synaptic factor once consolidated). */
  strength_days: number;
  access_count: number;
  last_accessed: Date | null;
  last_reviewed: Date;
  review_schedule: Date[];
  next_review: Date | null;
  review_count: number;
  forgotten_at: Date | null;
  /** When the memory's life began: creation, or the event time of an import. */
  born_at: Date;
}

/** Retention now, from the anchor, with access-reinforced strength (docs/design.md §5). */
export function currentRetention(state: Pick<RetentionState, 'current_retention' | 'retention_at' | 'strength_days' | 'access_count'>, now: Date, config: LifecycleConfig): number {
  return retentionAt(
    { retention: state.current_retention, at: state.retention_at },
    effectiveStrengthDays(state.strength_days, state.access_count, config),
    now,
  );
}

/** Seed 001 review: `R ← min(1, R + 0.3·(1 − R))`. Never lowers R. */
export function reinforce(retention: number, config: LifecycleConfig): number {
  return Math.min(1, retention + config.review.reinforcement * (1 - retention));
}

/**
 * Whether an access promotes (docs/design.md §5): access_count (after this access) ≥ 3, or the memory
 * is older than 24 h, or its importance ≥ 0.6. Long-term memories have nowhere to go.
 */
export function promotes(state: Pick<RetentionState, 'layer' | 'access_count' | 'born_at' | 'importance_score'>, now: Date, config: LifecycleConfig): boolean {
  if (state.layer === 'long_term') return false;
  const p = config.promotion;
  return (
    state.access_count >= p.access_count ||
    now.getTime() - state.born_at.getTime() > p.age_hours * HOUR_MS ||
    state.importance_score >= p.importance
  );
}

/**
 * One access (a GET, a search hit, a recall entry; docs/design.md §5 "On access"):
 * 1. retention decays to now with the strength reinforced by the accesses so far;
 * 2. `access_count`+1, `last_accessed` = now;
 * 3. if a review is due (now ≥ next_review): R ← min(1, R + 0.3·(1 − R)), `review_count`+1,
 *    `last_reviewed` = now, `next_review` = the next slot after now;
 * 4. the curve is re-anchored at now;
 * 5. promotion one layer up when {@link promotes}; S scales with the layer's coefficient;
 *    promotion clears forgetting, and so does retention climbing back over the threshold.
 */
export function applyAccess(state: RetentionState, now: Date, config: LifecycleConfig): RetentionState {
  const before = currentRetention(state, now, config);
  const next: RetentionState = { ...state, access_count: state.access_count + 1, last_accessed: now };
  let retention = before;
  if (state.next_review && now.getTime() >= state.next_review.getTime()) {
    retention = reinforce(before, config);
    next.review_count = state.review_count + 1;
    next.last_reviewed = now;
    next.next_review = nextReviewAfter(state.review_schedule, now);
  }
  next.current_retention = retention;
  next.retention_at = now;
  if (promotes(next, now, config)) {
    const up = nextLayer(state.layer);
    const c = config.retention.coefficients;
    next.strength_days = Math.round(state.strength_days * (c[up] / c[state.layer]) * 1e12) / 1e12;
    next.layer = up;
    next.forgotten_at = null;
  }
  if (next.forgotten_at && retention >= config.forgetting.soft_threshold) next.forgotten_at = null;
  return next;
}

/** For tests and callers that compare layers. */
export function isPromotion(before: MemoryLayer, after: MemoryLayer): boolean {
  return layerRank(after) > layerRank(before);
}

/**
 * Retention over the coming days if nothing touches the memory: `points` evenly spaced samples
 * from now to now + `days` (inclusive), for a plot of the forgetting curve.
 */
export function retentionForecast(
  state: Pick<RetentionState, 'current_retention' | 'retention_at' | 'strength_days' | 'access_count'>,
  now: Date,
  config: LifecycleConfig,
  days = 30,
  points = 121,
): { at: Date; retention: number }[] {
  const step = (days * 24 * HOUR_MS) / (points - 1);
  return Array.from({ length: points }, (_, i) => {
    const at = new Date(now.getTime() + i * step);
    return { at, retention: currentRetention(state, at, config) };
  });
}

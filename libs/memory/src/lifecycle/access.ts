import type { MemoryLayer, MemoryPriority } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';
import { layerRank, nextLayer } from './layers';
import { effectiveStrengthDays, retentionAt } from './retention';
import { reencodeLifecycle } from './encode';
import { nextReviewAfter, reviewIntervalsHours } from './review';

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
  /** Its event time, or its creation when the event is dated later: promotion's age counts from it. */
  event_at: Date;
}

/**
 * A memory's event time as the lifecycle's ages count it (promotion's 24 h, the neocortex's 30 d,
 * eviction): when it happened (`occurred_at`), or when it was stored if the event is dated later
 * (an appointment to come). Not its birth: retention starts when it is stored. libs/db
 * `eventAtSql` is the same rule in SQL.
 */
export function eventAt(row: { occurred_at: Date; created_at: Date }): Date {
  return row.occurred_at.getTime() < row.created_at.getTime() ? row.occurred_at : row.created_at;
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
export function promotes(state: Pick<RetentionState, 'layer' | 'access_count' | 'event_at' | 'importance_score'>, now: Date, config: LifecycleConfig): boolean {
  if (state.layer === 'long_term') return false;
  const p = config.promotion;
  return (
    state.access_count >= p.access_count ||
    now.getTime() - state.event_at.getTime() > p.age_hours * HOUR_MS ||
    state.importance_score >= p.importance
  );
}

/**
 * How long a revived memory must last (hours from `now`): until its next review slot, or, when its
 * schedule is used up, for its schedule's longest interval (the importance-scaled last base interval).
 */
export function revivalHorizonHours(state: Pick<RetentionState, 'importance_score'>, nextReview: Date | null, now: Date, config: LifecycleConfig): number {
  if (nextReview) return Math.max(0, nextReview.getTime() - now.getTime()) / HOUR_MS;
  return Math.max(...reviewIntervalsHours(state.importance_score, config));
}

/**
 * Revival (ours, against PowerMem's most-filed complaint, "reinforcement never applied";
 * docs/lifecycle.md "Reinforcement"): an access that finds a memory below the soft threshold θ
 * (soft-forgotten, or about to be) lifts the retention it leaves (`retention`, after any review)
 * so that it survives the revival horizon ({@link revivalHorizonHours}):
 * retention becomes at least `θ·(1 + 10⁻⁹) · exp(h / (24·S_eff))`, so that it reaches θ no sooner than the
 * horizon. When even R = 1 would not last that long, the strength S rises to what does:
 * `S = h / (24·ln(1/θ)) / (S_eff / S)`.
 *
 * @returns the retention and strength after the revival (unchanged when none is needed)
 */
export function revive(
  retention: number,
  strengthDays: number,
  accessCount: number,
  horizonHours: number,
  config: LifecycleConfig,
): { retention: number; strength_days: number } {
  const theta = config.forgetting.soft_threshold;
  if (theta <= 0) return { retention, strength_days: strengthDays };
  const factor = effectiveStrengthDays(strengthDays, accessCount, config) / strengthDays;
  // A relative margin of 1e-9 so that float noise (the sweeps re-anchor retention) never puts it under θ early.
  const needed = theta * (1 + 1e-9) * Math.exp(horizonHours / (24 * strengthDays * factor));
  if (needed <= 1) return { retention: Math.max(retention, needed), strength_days: strengthDays };
  const strength = Math.round((horizonHours / (24 * Math.log(1 / theta)) / factor) * 1e12) / 1e12;
  return { retention: 1, strength_days: Math.max(strengthDays, strength) };
}

/**
 * One access (a GET, a search hit, a recall entry; docs/design.md §5 "On access"):
 * 1. retention decays to now with the strength reinforced by the accesses so far;
 * 2. `access_count`+1, `last_accessed` = now;
 * 3. if a review is due (now ≥ next_review): R ← min(1, R + 0.3·(1 − R)), `review_count`+1,
 *    `last_reviewed` = now, `next_review` = the next slot after now;
 * 4. the curve is re-anchored at now;
 * 5. promotion one layer up when {@link promotes}; S scales with the layer's coefficient;
 * 6. a memory found below the soft threshold is revived ({@link revive}) to last until its next
 *    review slot; forgetting is cleared exactly when retention is then at or above the threshold
 *    (promotion alone no longer clears it).
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
  next.retention_at = now;
  if (promotes(next, now, config)) {
    const up = nextLayer(state.layer);
    const c = config.retention.coefficients;
    next.strength_days = Math.round(state.strength_days * (c[up] / c[state.layer]) * 1e12) / 1e12;
    next.layer = up;
  }
  // Found below the threshold (or forgotten): a review's R + 0.3·(1 − R) from R ≈ 0 lands on the
  // threshold itself, gone again at the next sweep; revival makes it last to the next review slot.
  const foundBelow = before < config.forgetting.soft_threshold || state.forgotten_at !== null;
  const revived = foundBelow
    ? revive(retention, next.strength_days, next.access_count, revivalHorizonHours(state, next.next_review, now, config), config)
    : { retention, strength_days: next.strength_days };
  next.current_retention = revived.retention;
  next.strength_days = revived.strength_days;
  if (next.forgotten_at && revived.retention >= config.forgetting.soft_threshold) next.forgotten_at = null;
  return next;
}

/**
 * A repetition of what a memory holds (the conversation stream met it again, reworded or not;
 * seed 000 rehearsal: repetition strengthens): an access whose review counts whatever the
 * schedule says (`R ← R + 0.3·(1 − R)`, `review_count`+1), and the memory at least as important
 * as the repetition (re-encoded as a rescore: its layer never goes down, its strength never
 * drops). So a fact said four times outlives one said once (ours; docs/design.md §5).
 *
 * @param importance 0..1, the repetition's importance
 * @param synaptic whether the memory was synaptically consolidated (its strength keeps the factor)
 */
export function applyRepetition(state: RetentionState, importance: number, now: Date, config: LifecycleConfig, synaptic = false): RetentionState {
  const accessed = applyAccess({ ...state, next_review: now }, now, config);
  // The forced review took the schedule's next slot after now; the stored one may be later still.
  accessed.next_review = nextReviewAfter(state.review_schedule, now);
  if (importance <= state.importance_score) return accessed;
  const lifted = reencodeLifecycle({ layer: accessed.layer, synaptic }, accessed.current_retention, importance, now, config);
  return {
    ...accessed,
    importance_score: importance,
    layer: lifted.layer,
    current_retention: lifted.current_retention,
    strength_days: Math.max(accessed.strength_days, lifted.strength_days),
    forgotten_at: lifted.current_retention >= config.forgetting.soft_threshold ? null : accessed.forgotten_at,
  };
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

import type { MemoryRow } from '@engram/db';
import { currentRetention, effectiveStrengthDays, forgettingVerdict, inGrace, retentionForecast, type ForgettingVerdict, type LifecycleConfig } from '@engram/memory';

/** What the forgetting sweep would do now (libs/memory `forgettingVerdict`, with the grace). */
function verdictNow(row: MemoryRow, retention: number | null, now: Date, config: LifecycleConfig): ForgettingVerdict {
  if (retention === null) return 'keep';
  const stored_days = (now.getTime() - row.created_at.getTime()) / 86_400_000;
  return forgettingVerdict({ retention, tier: row.tier, priority: row.priority, stored_days, in_grace: inGrace(row.review_schedule[0] ?? null, now) }, config);
}

/**
 * The retention card of a memory (seed 001 §2.2 "lifecycle metadata profile") at `now`:
 * its layer and importance, retention now and at its anchor, strength, the review schedule with
 * each slot marked done once a review happened at or after it, and a 30-day forecast (121
 * points, 6 hours apart) of retention if nothing touches it, with the forgetting thresholds.
 */
export function retentionView(row: MemoryRow, now: Date, config: LifecycleConfig) {
  const tracked = row.current_retention !== null && row.retention_at !== null && row.strength_days !== null;
  const state = tracked
    ? { current_retention: row.current_retention as number, retention_at: row.retention_at as Date, strength_days: row.strength_days as number, access_count: row.access_count }
    : null;
  const retentionNow = state ? currentRetention(state, now, config) : null;
  return {
    id: row.id,
    layer: row.layer,
    tier: row.tier,
    priority: row.priority,
    importance_score: row.importance_score,
    importance_source: row.importance_source,
    initial_retention: row.initial_retention,
    current_retention: retentionNow,
    retention_anchor: state ? { retention: state.current_retention, at: state.retention_at.toISOString() } : null,
    strength_days: row.strength_days,
    effective_strength_days: state ? effectiveStrengthDays(state.strength_days, state.access_count, config) : null,
    review_schedule: row.review_schedule.map((at) => ({
      at: at.toISOString(),
      done: row.review_count > 0 && row.last_reviewed !== null && row.last_reviewed.getTime() >= at.getTime(),
    })),
    next_review: row.next_review?.toISOString() ?? null,
    review_count: row.review_count,
    last_reviewed: row.last_reviewed?.toISOString() ?? null,
    access_count: row.access_count,
    last_accessed: row.last_accessed?.toISOString() ?? null,
    forgotten_at: row.forgotten_at?.toISOString() ?? null,
    forgetting: {
      soft_threshold: config.forgetting.soft_threshold,
      eviction_threshold: config.forgetting.eviction_threshold,
      verdict_now: verdictNow(row, retentionNow, now, config),
      /** Until when the memory cannot be soft-forgotten (its first review slot), if that is still ahead. */
      grace_until: inGrace(row.review_schedule[0] ?? null, now) ? (row.review_schedule[0] as Date).toISOString() : null,
    },
    forecast: state ? retentionForecast(state, now, config).map((p) => ({ at: p.at.toISOString(), retention: p.retention })) : [],
    as_of: now.toISOString(),
  };
}

import { sql, type RawBuilder } from 'kysely';
import type { LifecycleConfig } from '@engram/memory';

/**
 * Every lifecycle rule that SQL applies, as the SQL form of its libs/memory function, over the
 * columns of `memories` (docs/design.md §5): retention (`currentRetention`), an access
 * (`applyAccess`), expiry (`isExpired`), soft-forgetting (`softForgets`), eviction
 * (`forgettingVerdict`), the tier (`tierOf`) and the move to the neocortex
 * (`systemsConsolidation`). They call the SQL functions of migration 20261129200000
 * (engram_effective_strength, engram_retention_at, engram_next_review_after);
 * test/lifecycle-sql.test.ts checks each against its TypeScript function on random rows.
 * Repositories use these, never a predicate of their own.
 */

/** S_eff of the row (days). */
export function effectiveStrengthSql(config: LifecycleConfig): RawBuilder<number> {
  const r = config.retention;
  return sql<number>`engram_effective_strength(strength_days, access_count, ${r.access_reinforcement}::float8, ${r.access_cap}::float8)`;
}

/** Retention of the row at `now` (0..1); rows without lifecycle fields count as fully retained. */
export function retentionNowSql(config: LifecycleConfig, now: Date): RawBuilder<number> {
  return sql<number>`coalesce(engram_retention_at(current_retention, retention_at, ${effectiveStrengthSql(config)}, ${now}::timestamptz), 1)`;
}

/** True when the row is not expired at `at` (libs/memory `isExpired` is false): no `expires_at`, or a later one. */
export function notExpiredSql(at: Date): RawBuilder<boolean> {
  return sql<boolean>`(expires_at is null or expires_at > ${at}::timestamptz)`;
}

/** True when the row has expired at `at` (libs/memory `isExpired`). */
export function expiredSql(at: Date): RawBuilder<boolean> {
  return sql<boolean>`(expires_at is not null and expires_at <= ${at}::timestamptz)`;
}

/**
 * True when the forgetting sweep soft-forgets the row at `now` (libs/memory `softForgets`): not
 * forgotten yet, retention tracked, not critical, past its first review slot, retention now below
 * the soft threshold.
 */
export function softForgettableSql(config: LifecycleConfig, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(forgotten_at is null and priority <> 'critical' and current_retention is not null
    and (cardinality(review_schedule) = 0 or review_schedule[1] <= ${now}::timestamptz)
    and ${retentionNowSql(config, now)} < ${config.forgetting.soft_threshold}::float8)`;
}

/** True when the row's vector leaves the index at `now` (docs/design.md §5 tiers): archived, or expired. */
export function leavesVectorIndexSql(now: Date): RawBuilder<boolean> {
  return sql<boolean>`(tier = 'archive' or ${expiredSql(now)})`;
}

/** The instant a row's life began: its event time if that is earlier than its creation. */
export const bornAtSql = sql<Date>`least(occurred_at, created_at)`;

/**
 * The SET clause of one access (libs/memory `applyAccess`, with its revival: `revive`,
 * `revivalHorizonHours`), every expression over the row's own columns so that concurrent
 * accesses of one memory serialise on its row lock and none is lost.
 */
export function accessSetSql(config: LifecycleConfig, now: Date) {
  const rNow = retentionNowSql(config, now);
  const due = sql<boolean>`(next_review is not null and ${now}::timestamptz >= next_review)`;
  const reinforced = sql<number>`least(1, ${rNow} + ${config.review.reinforcement}::float8 * (1 - ${rNow}))`;
  const newR = sql<number>`(case when ${due} then ${reinforced} else ${rNow} end)`;
  const p = config.promotion;
  const promote = sql<boolean>`(layer <> 'long_term' and (
      access_count + 1 >= ${p.access_count}::int
      or ${now}::timestamptz - ${bornAtSql} > make_interval(secs => ${p.age_hours * 3600}::float8)
      or coalesce(importance_score, 0) >= ${p.importance}::float8))`;
  const c = config.retention.coefficients;
  const upRatio = sql<number>`(case when layer = 'working' then ${c.short_term / c.working}::float8 else ${c.long_term / c.short_term}::float8 end)`;
  const promoted = sql<number>`(case when ${promote} then round((strength_days * ${upRatio})::numeric, 12)::float8 else strength_days end)`;
  const nextReview = sql<Date>`(case when ${due} then engram_next_review_after(review_schedule, ${now}::timestamptz) else next_review end)`;
  // Revival: the horizon, the strength factor after this access, the retention that lasts it
  // (a subnormal importance counts as 0: PostgreSQL's float8 product raises on underflow).
  const r = config.review;
  const theta = config.forgetting.soft_threshold;
  const horizon = sql<number>`(case when ${nextReview} is not null then greatest(0, extract(epoch from (${nextReview} - ${now}::timestamptz)) / 3600.0)
      else greatest(${r.min_interval_hours}::float8, ${Math.max(...r.base_intervals_hours)}::float8 * (1 - (case when importance_score > 1e-300 then importance_score else 0 end) * ${r.importance_factor}::float8)) end)`;
  const factor = sql<number>`(engram_effective_strength(${promoted}, least(access_count::bigint + 1, 2147483647)::int, ${config.retention.access_reinforcement}::float8, ${config.retention.access_cap}::float8) / ${promoted})`;
  // exp's argument is capped: beyond, the needed retention exceeds 1 anyway (and exp would overflow).
  const needed = sql<number>`(${theta * (1 + 1e-9)}::float8 * exp(least(${horizon} / (24 * ${promoted} * ${factor}), 50)))`;
  const below = sql<boolean>`(${theta}::float8 > 0 and (${rNow} < ${theta}::float8 or forgotten_at is not null))`;
  const revivedR = sql<number>`(case when not ${below} then ${newR} when ${needed} <= 1 then greatest(${newR}, ${needed}) else 1 end)`;
  const lnInverse = theta > 0 ? Math.log(1 / theta) : 1;
  const revivedS = sql<number>`(case when ${below} and ${needed} > 1 then greatest(${promoted}, round((${horizon} / (24 * ${lnInverse}::float8) / ${factor})::numeric, 12)::float8) else ${promoted} end)`;
  return {
    // Saturating: a count imported at the top of `integer` must not turn a read into an error.
    access_count: sql<number>`least(access_count::bigint + 1, 2147483647)::int`,
    last_accessed: sql<Date>`${now}::timestamptz`,
    current_retention: sql<number>`(case when current_retention is null or strength_days is null then current_retention else ${revivedR} end)`,
    retention_at: sql<Date>`(case when current_retention is null then retention_at else ${now}::timestamptz end)`,
    review_count: sql<number>`least(review_count::bigint + (case when ${due} then 1 else 0 end), 2147483647)::int`,
    last_reviewed: sql<Date>`(case when ${due} then ${now}::timestamptz else last_reviewed end)`,
    next_review: nextReview,
    layer: sql<'working' | 'short_term' | 'long_term'>`(case when ${promote} then (case when layer = 'working' then 'short_term' else 'long_term' end) else layer end)`,
    strength_days: sql<number>`(case when strength_days is null then null when current_retention is null then ${promoted} else ${revivedS} end)`,
    forgotten_at: sql<Date>`(case when current_retention is not null and strength_days is not null and ${revivedR} >= ${theta}::float8 then null else forgotten_at end)`,
    // libs/memory tierAfterAccess: an archived memory is rehydrated, warm and back in the vector index.
    tier: sql<'hot' | 'warm' | 'cold' | 'archive'>`(case when tier = 'archive' then 'warm' else tier end)`,
    embedding_status: sql<'pending' | 'ready' | 'failed' | 'archived'>`(case when tier = 'archive' and embedding_status = 'archived' then 'pending' else embedding_status end)`,
    embedding_attempts: sql<number>`(case when tier = 'archive' and embedding_status = 'archived' then 0 else embedding_attempts end)`,
  };
}

/**
 * The row's tier at `now` (libs/memory `tierOf`; seed 000 auto_tiering): hot while stored less
 * than `grace_days`, then by access frequency = access_count / days since it was stored
 * (created_at): > hot → hot, > warm → warm, > cold → cold, else archive.
 */
export function tierSql(config: LifecycleConfig, now: Date): RawBuilder<'hot' | 'warm' | 'cold' | 'archive'> {
  const t = config.tiers;
  const ageDays = sql<number>`(extract(epoch from (${now}::timestamptz - created_at)) / 86400.0)`;
  const frequency = sql<number>`(access_count / greatest(${ageDays}, 2.220446049250313e-16))`;
  return sql`(case
    when ${ageDays} < ${t.grace_days}::float8 then 'hot'
    when ${frequency} > ${t.hot}::float8 then 'hot'
    when ${frequency} > ${t.warm}::float8 then 'warm'
    when ${frequency} > ${t.cold}::float8 then 'cold'
    else 'archive' end)`;
}

/**
 * True when the row is to be evicted at `now` (libs/memory `forgettingVerdict` = evict): not
 * critical, archived, stored at least `eviction_min_stored_days`, retention now below the
 * eviction threshold. Rows without lifecycle fields (retention untracked) are never evicted.
 */
export function evictableSql(config: LifecycleConfig, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(priority <> 'critical' and tier = 'archive' and current_retention is not null
    and created_at <= ${now}::timestamptz - make_interval(secs => ${config.forgetting.eviction_min_stored_days * 86_400}::float8)
    and ${retentionNowSql(config, now)} < ${config.forgetting.eviction_threshold}::float8)`;
}

/** True when the row moves to the neocortex at `now` (libs/memory `systemsConsolidation`). */
export function movesToNeocortexSql(config: LifecycleConfig, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(storage_location = 'hippocampus'
    and extract(epoch from (${now}::timestamptz - ${bornAtSql})) / 86400.0 > ${config.systems.neocortex_age_days}::float8)`;
}

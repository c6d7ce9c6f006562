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

/**
 * A row's event time as the sweeps' ages count it: `occurred_at`, or its creation when the event
 * is dated later (an appointment to come). Not its birth: retention starts at creation. libs/memory
 * `eventAt` is the same rule in TypeScript.
 */
export const eventAtSql = sql<Date>`least(occurred_at, created_at)`;

/** The columns one access sets, in the order of accessAssignmentSql's values. */
export const ACCESS_COLUMNS = [
  'access_count',
  'last_accessed',
  'current_retention',
  'retention_at',
  'review_count',
  'last_reviewed',
  'next_review',
  'layer',
  'strength_days',
  'forgotten_at',
  'tier',
  'embedding_status',
  'embedding_attempts',
] as const;

/**
 * The SET clause of one access (libs/memory `applyAccess`, with its revival: `revive`,
 * `revivalHorizonHours`): `(ACCESS_COLUMNS) = (select ...)`, a row sub-select over the target
 * row's own columns, so that concurrent accesses of one memory serialise on its row lock and
 * none is lost (a re-checked row is computed again from its new version).
 *
 * Each intermediate (retention now, due, promotion, next review, revival horizon, ...) is
 * computed once, in a chain of one-row subqueries (OFFSET 0 keeps the planner from folding them
 * back into every place they are used): written as nested expressions, retention now appeared 15
 * times and the statement took longer to plan than to run (bench/RESULTS.md, "Peers"). Names in
 * the chain start with `a_`, so that none hides a column of `memories`.
 */
export function accessAssignmentSql(config: LifecycleConfig, now: Date): RawBuilder<unknown> {
  const at = sql`${now}::timestamptz`;
  const p = config.promotion;
  const c = config.retention.coefficients;
  const r = config.review;
  const theta = config.forgetting.soft_threshold;
  const lnInverse = theta > 0 ? Math.log(1 / theta) : 1;
  // 1. What the row is now: its retention, whether a review is due, whether it is promoted.
  const s1 = sql`select ${retentionNowSql(config, now)} as a_r_now,
      (next_review is not null and ${at} >= next_review) as a_due,
      (layer <> 'long_term' and (
        access_count + 1 >= ${p.access_count}::int
        or ${at} - ${eventAtSql} > make_interval(secs => ${p.age_hours * 3600}::float8)
        or coalesce(importance_score, 0) >= ${p.importance}::float8)) as a_promote
      offset 0`;
  // 2. After the review and the promotion: retention, strength, the next review slot.
  const upRatio = sql`(case when layer = 'working' then ${c.short_term / c.working}::float8 else ${c.long_term / c.short_term}::float8 end)`;
  const s2 = sql`select (case when s1.a_due then least(1, s1.a_r_now + ${r.reinforcement}::float8 * (1 - s1.a_r_now)) else s1.a_r_now end) as a_new_r,
      (case when s1.a_promote then round((strength_days * ${upRatio})::numeric, 12)::float8 else strength_days end) as a_promoted,
      (case when s1.a_due then engram_next_review_after(review_schedule, ${at}) else next_review end) as a_next_review
      offset 0`;
  // 3. Revival: the horizon it must last, and the strength factor after this access (a
  // subnormal importance counts as 0: PostgreSQL's float8 product raises on underflow).
  const s3 = sql`select (case when s2.a_next_review is not null then greatest(0, extract(epoch from (s2.a_next_review - ${at})) / 3600.0)
        else greatest(${r.min_interval_hours}::float8, ${Math.max(...r.base_intervals_hours)}::float8 * (1 - (case when importance_score > 1e-300 then importance_score else 0 end) * ${r.importance_factor}::float8)) end) as a_horizon,
      (engram_effective_strength(s2.a_promoted, least(access_count::bigint + 1, 2147483647)::int, ${config.retention.access_reinforcement}::float8, ${config.retention.access_cap}::float8) / s2.a_promoted) as a_factor
      offset 0`;
  // 4. The retention that lasts the horizon (exp's argument capped: beyond, it exceeds 1 anyway
  // and exp would overflow), and whether the row is below the threshold or forgotten.
  const s4 = sql`select (${theta * (1 + 1e-9)}::float8 * exp(least(s3.a_horizon / (24 * s2.a_promoted * s3.a_factor), 50))) as a_needed,
      (${theta}::float8 > 0 and (s1.a_r_now < ${theta}::float8 or forgotten_at is not null)) as a_below
      offset 0`;
  const s5 = sql`select (case when not s4.a_below then s2.a_new_r when s4.a_needed <= 1 then greatest(s2.a_new_r, s4.a_needed) else 1 end) as a_revived_r,
      (case when s4.a_below and s4.a_needed > 1 then greatest(s2.a_promoted, round((s3.a_horizon / (24 * ${lnInverse}::float8) / s3.a_factor)::numeric, 12)::float8) else s2.a_promoted end) as a_revived_s
      offset 0`;
  const values = [
    // Saturating: a count imported at the top of `integer` must not turn a read into an error.
    sql`least(access_count::bigint + 1, 2147483647)::int`,
    at,
    sql`(case when current_retention is null or strength_days is null then current_retention else s5.a_revived_r end)`,
    sql`(case when current_retention is null then retention_at else ${at} end)`,
    sql`least(review_count::bigint + (case when s1.a_due then 1 else 0 end), 2147483647)::int`,
    sql`(case when s1.a_due then ${at} else last_reviewed end)`,
    sql`s2.a_next_review`,
    sql`(case when s1.a_promote then (case when layer = 'working' then 'short_term' else 'long_term' end) else layer end)`,
    sql`(case when strength_days is null then null when current_retention is null then s2.a_promoted else s5.a_revived_s end)`,
    sql`(case when current_retention is not null and strength_days is not null and s5.a_revived_r >= ${theta}::float8 then null else forgotten_at end)`,
    // libs/memory tierAfterAccess: an archived memory is rehydrated, warm and back in the vector index.
    sql`(case when tier = 'archive' then 'warm' else tier end)`,
    sql`(case when tier = 'archive' and embedding_status = 'archived' then 'pending' else embedding_status end)`,
    sql`(case when tier = 'archive' and embedding_status = 'archived' then 0 else embedding_attempts end)`,
  ];
  return sql`(${sql.join(ACCESS_COLUMNS.map((col) => sql.ref(col)))}) = (select ${sql.join(values)}
    from (${s1}) s1
    cross join lateral (${s2}) s2
    cross join lateral (${s3}) s3
    cross join lateral (${s4}) s4
    cross join lateral (${s5}) s5)`;
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
    and extract(epoch from (${now}::timestamptz - ${eventAtSql})) / 86400.0 > ${config.systems.neocortex_age_days}::float8)`;
}

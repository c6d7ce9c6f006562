import type { AccessState } from '@engram/db';
import { applyAccess, eventAt, nextReviewAfter, promotes, tierAfterAccess, type LifecycleConfig, type RetentionState } from '@engram/memory';

const INT_MAX = 2_147_483_647;

/** A stored memory's lifecycle as libs/memory reads it; undefined for a row without lifecycle fields. */
export function retentionStateOf(row: AccessState): RetentionState | undefined {
  if (row.current_retention === null || row.retention_at === null || row.strength_days === null || row.last_reviewed === null) return undefined;
  return {
    importance_score: row.importance_score ?? 0,
    layer: row.layer,
    priority: row.priority,
    current_retention: row.current_retention,
    retention_at: row.retention_at,
    strength_days: row.strength_days,
    access_count: row.access_count,
    last_accessed: row.last_accessed,
    last_reviewed: row.last_reviewed,
    review_schedule: row.review_schedule,
    next_review: row.next_review,
    review_count: row.review_count,
    forgotten_at: row.forgotten_at,
    event_at: eventAt(row),
  };
}

/**
 * The instant a waiting access is applied at (libs/db `MemoryAccessesRepository.recordAccess`): its
 * own, or the row's `last_accessed` or `retention_at` when later (written meanwhile by another
 * process's access or by a sweep), so that the curve is never re-anchored backwards.
 */
export function accessInstant(row: Pick<AccessState, 'last_accessed' | 'retention_at'>, at: Date): Date {
  const t = Math.max(at.getTime(), row.last_accessed?.getTime() ?? -Infinity, row.retention_at?.getTime() ?? -Infinity);
  return t === at.getTime() ? at : new Date(t);
}

/**
 * A memory after one access at `at`, as libs/db `MemoryAccessesRepository.recordAccess` writes it
 * (docs/design.md §5.5): libs/memory `applyAccess` (count, due review, re-anchored curve,
 * promotion, revival), the tier after an access (`tierAfterAccess`: an archived memory is
 * rehydrated and its vector pending again). A row without lifecycle fields (an import of a
 * memory that had none) gets what the SQL gives it: the count, the due review and the promotion,
 * its retention untouched. What the write-behind recorder answers with, and what it writes
 * (libs/db `writeAccesses`); test/lifecycle-sql.test.ts checks it against the SQL on random rows.
 */
export function accessedRow<T extends AccessState>(row: T, at: Date, config: LifecycleConfig): T {
  const rehydrated = row.tier === 'archive';
  const tiers = {
    tier: tierAfterAccess(row.tier),
    embedding_status: rehydrated && row.embedding_status === 'archived' ? ('pending' as const) : row.embedding_status,
  };
  const state = retentionStateOf(row);
  if (state) {
    const next = applyAccess(state, at, config);
    return {
      ...row,
      ...tiers,
      access_count: Math.min(INT_MAX, next.access_count),
      last_accessed: next.last_accessed,
      current_retention: next.current_retention,
      retention_at: next.retention_at,
      review_count: Math.min(INT_MAX, next.review_count),
      last_reviewed: next.last_reviewed,
      next_review: next.next_review,
      layer: next.layer,
      strength_days: next.strength_days,
      forgotten_at: next.forgotten_at,
    };
  }
  // The SQL's other branch: no curve to re-anchor or revive.
  const due = row.next_review !== null && at.getTime() >= row.next_review.getTime();
  const promote = promotes({ layer: row.layer, access_count: row.access_count + 1, event_at: eventAt(row), importance_score: row.importance_score ?? 0 }, at, config);
  const c = config.retention.coefficients;
  const ratio = row.layer === 'working' ? c.short_term / c.working : c.long_term / c.short_term;
  const promoted = row.strength_days === null ? null : promote ? Math.round(row.strength_days * ratio * 1e12) / 1e12 : row.strength_days;
  return {
    ...row,
    ...tiers,
    access_count: Math.min(INT_MAX, row.access_count + 1),
    last_accessed: at,
    review_count: Math.min(INT_MAX, row.review_count + (due ? 1 : 0)),
    last_reviewed: due ? at : row.last_reviewed,
    next_review: due ? nextReviewAfter(row.review_schedule, at) : row.next_review,
    layer: promote ? (row.layer === 'working' ? 'short_term' : 'long_term') : row.layer,
    strength_days: row.current_retention === null ? promoted : row.strength_days,
  };
}

/**
 * A memory after accesses at `instants`, in order, each at {@link accessInstant} (never before the
 * row's last access or anchor): what the write-behind recorder shows and writes for waiting ones.
 */
export function accessedAt<T extends AccessState>(row: T, instants: readonly Date[], config: LifecycleConfig): T {
  return instants.reduce((r, at) => accessedRow(r, accessInstant(r, at), config), row);
}

import type { MemoryPriority, MemoryTier } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';

export type ForgettingVerdict = 'keep' | 'soft_forget' | 'evict';

/**
 * docs/design.md §5 "Forgetting": retention below 0.3 → soft-forgotten (hidden from recall, ranked ×0.1
 * in search, restorable); evicted only when also archived and below 0.1, and (our safety rule:
 * eviction cannot be undone) stored at least `eviction_min_stored_days` (30). `critical`
 * memories are pinned: never forgotten by decay.
 *
 * @param state.stored_days days since the memory was written (created_at), not since its event
 * @param state.in_grace before its first review slot ({@link inGrace}): not soft-forgotten yet
 */
export function forgettingVerdict(
  state: { retention: number; tier: MemoryTier; priority: MemoryPriority; stored_days: number; in_grace?: boolean },
  config: LifecycleConfig,
): ForgettingVerdict {
  if (state.priority === 'critical') return 'keep';
  const f = config.forgetting;
  if (state.tier === 'archive' && state.retention < f.eviction_threshold && state.stored_days >= f.eviction_min_stored_days) return 'evict';
  if (state.retention < f.soft_threshold && !state.in_grace) return 'soft_forget';
  return 'keep';
}

/**
 * The grace against soft-forgetting (docs/design.md §5.6): before the first slot of its review
 * schedule a memory could not have been reviewed yet. Without a schedule, no grace.
 */
export function inGrace(firstReview: Date | null, now: Date): boolean {
  return firstReview !== null && now.getTime() < firstReview.getTime();
}

/**
 * True when the forgetting sweep soft-forgets the memory now (docs/design.md §5): not forgotten
 * yet, retention tracked (`null`: a row without lifecycle fields is never forgotten), not pinned
 * (`critical`), past its grace (its first review slot: a memory is not forgotten before it could
 * be reviewed once; without a schedule, no grace), and retention now below
 * `forgetting.soft_threshold` (0.3).
 *
 * @param state.retention retention now, 0..1, or null when untracked
 * @param state.first_review the first slot of its review schedule, if any
 */
export function softForgets(
  state: { retention: number | null; priority: MemoryPriority; forgotten_at: Date | null; first_review: Date | null },
  now: Date,
  config: LifecycleConfig,
): boolean {
  if (state.forgotten_at !== null || state.retention === null || state.priority === 'critical') return false;
  return !inGrace(state.first_review, now) && state.retention < config.forgetting.soft_threshold;
}

/** True when a memory has expired at `at`: its `expires_at` is at or before that instant (seed 002 "만료"). */
export function isExpired(expiresAt: Date | null, at: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= at.getTime();
}

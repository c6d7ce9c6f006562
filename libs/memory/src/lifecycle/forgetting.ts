import type { MemoryPriority, MemoryTier } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';

export type ForgettingVerdict = 'keep' | 'soft_forget' | 'evict';

/**
 * DESIGN §5 "Forgetting": retention below 0.3 → soft-forgotten (hidden from recall, ranked ×0.1
 * in search, restorable); evicted only when also archived and below 0.1. `critical` memories are
 * pinned: never forgotten by decay.
 */
export function forgettingVerdict(state: { retention: number; tier: MemoryTier; priority: MemoryPriority }, config: LifecycleConfig): ForgettingVerdict {
  if (state.priority === 'critical') return 'keep';
  const f = config.forgetting;
  if (state.tier === 'archive' && state.retention < f.eviction_threshold) return 'evict';
  if (state.retention < f.soft_threshold) return 'soft_forget';
  return 'keep';
}

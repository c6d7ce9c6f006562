import type { MemoryTier } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';

const DAY_MS = 86_400_000;

/**
 * Seed 000 `auto_tiering`: access frequency = access_count / age_days; > 10 hot, > 1 warm,
 * > 0.1 cold, else archive. A memory younger than `grace_days` (default 1) is hot: its age is
 * too short for a frequency to mean anything (a new memory would otherwise be archived at once).
 */
export function tierOf(accessCount: number, bornAt: Date, now: Date, config: LifecycleConfig): MemoryTier {
  const ageDays = (now.getTime() - bornAt.getTime()) / DAY_MS;
  const t = config.tiers;
  if (ageDays < t.grace_days) return 'hot';
  const frequency = accessCount / Math.max(ageDays, Number.EPSILON);
  if (frequency > t.hot) return 'hot';
  if (frequency > t.warm) return 'warm';
  if (frequency > t.cold) return 'cold';
  return 'archive';
}

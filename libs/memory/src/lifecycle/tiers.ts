import type { MemoryTier } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';
import { cutUnits } from '../visible-text';

const DAY_MS = 86_400_000;

/**
 * Seed 000 `auto_tiering`: access frequency = access_count / age_days; > 10 hot, > 1 warm,
 * > 0.1 cold, else archive. The age is since the memory was stored (`storedAt`, created_at),
 * not since its event: a memory can only be used since it is here, and an import of old events
 * would otherwise be archived on arrival. A memory stored less than `grace_days` (default 1) ago
 * is hot: its age is too short for a frequency to mean anything.
 */
export function tierOf(accessCount: number, storedAt: Date, now: Date, config: LifecycleConfig): MemoryTier {
  const ageDays = (now.getTime() - storedAt.getTime()) / DAY_MS;
  const t = config.tiers;
  if (ageDays < t.grace_days) return 'hot';
  const frequency = accessCount / Math.max(ageDays, Number.EPSILON);
  if (frequency > t.hot) return 'hot';
  if (frequency > t.warm) return 'warm';
  if (frequency > t.cold) return 'cold';
  return 'archive';
}

/** Longest gist, in characters (UTF-16 code units, never splitting a surrogate pair). */
export const GIST_MAX_CHARS = 200;

/** Tiers whose memories are compacted (gist plus compressed text); docs/design.md §5. */
export const COMPACT_TIERS: readonly MemoryTier[] = ['cold', 'archive'];

/**
 * The gist a cold or archived memory keeps in the index (docs/design.md §5 tiers): extractive, the
 * text's opening up to its first sentence end, whitespace collapsed, at most
 * {@link GIST_MAX_CHARS} characters, cut at a word boundary with `…` when longer. A text that
 * already fits is its own gist (returned unchanged but for whitespace). Never empty for a
 * non-blank text.
 */
export function gistOf(content: string): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= GIST_MAX_CHARS) return text;
  const sentence = /^(.{20,}?[.!?])(\s|$)/su.exec(text.slice(0, GIST_MAX_CHARS));
  if (sentence?.[1]) return sentence[1];
  let cut = cutUnits(text, GIST_MAX_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  if (space >= GIST_MAX_CHARS / 2) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/**
 * The tier of a memory just used (a get, a search or recall hit): an archived memory is
 * rehydrated (docs/design.md §5: "rehydrates on access") and comes back warm, in full and re-embedded; the
 * next tiering sweep files it again by its access frequency. Other tiers are left to the sweep.
 */
export function tierAfterAccess(tier: MemoryTier): MemoryTier {
  return tier === 'archive' ? 'warm' : tier;
}

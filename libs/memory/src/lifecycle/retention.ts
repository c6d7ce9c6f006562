import type { MemoryLayer } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';

const HOUR_MS = 3_600_000;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Seed 001 §2.2.1: `initial_retention = initial_retention_factor × importance` (0..1). */
export function initialRetention(importance: number, config: LifecycleConfig): number {
  return clamp01(config.retention.initial_retention * importance);
}

/** docs/design.md §5: `S = base_strength_days × coefficient[layer]`, in days (seed: short_term 0.1 × 1.5 = 0.15). */
export function layerStrengthDays(layer: MemoryLayer, config: LifecycleConfig): number {
  // Rounded to 12 decimals so 0.1 × 1.5 is stored and shown as 0.15, not 0.15000000000000002.
  return Math.round(config.retention.base_strength_days * config.retention.coefficients[layer] * 1e12) / 1e12;
}

/**
 * Access reinforcement (docs/design.md §5): `S_eff = S·(1 + 0.3·ln(1 + access_count))`, at most `3·S`.
 * @param strengthDays S in days; @param accessCount accesses so far (≥ 0)
 */
export function effectiveStrengthDays(strengthDays: number, accessCount: number, config: LifecycleConfig): number {
  const { access_reinforcement: k, access_cap: cap } = config.retention;
  return Math.min(strengthDays * (1 + k * Math.log1p(Math.max(0, accessCount))), cap * strengthDays);
}

/**
 * The Ebbinghaus curve (docs/design.md §5): `R(t) = R_anchor · exp(−Δt_h / (24·S))`, Δt in hours since
 * the anchor (never negative: before the anchor, R is the anchor's). In 0..1.
 *
 * The anchor is the last instant retention was set (creation, a review, an access); exp is
 * memoryless, so re-anchoring at an access without a review changes nothing unless S changes.
 */
export function retentionAt(anchor: { retention: number; at: Date }, strengthDays: number, now: Date): number {
  const hours = Math.max(0, now.getTime() - anchor.at.getTime()) / HOUR_MS;
  return clamp01(anchor.retention * Math.exp(-hours / (24 * strengthDays)));
}

/**
 * When retention will fall to `threshold` from the anchor (hours after `anchor.at`), or
 * `Infinity` if it never does; 0 if it is already there.
 */
export function hoursUntilRetention(anchor: { retention: number; at: Date }, strengthDays: number, threshold: number): number {
  if (anchor.retention <= threshold) return 0;
  if (threshold <= 0) return Infinity;
  return 24 * strengthDays * Math.log(anchor.retention / threshold);
}

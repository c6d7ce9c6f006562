import type { MemoryLayer } from '../memory.constants';
import type { LifecycleConfig } from './lifecycle-config';

const ORDER: readonly MemoryLayer[] = ['working', 'short_term', 'long_term'];

/** Seed 001 §2.1: importance ≥ 0.8 → long_term; ≥ 0.6 → short_term; else working. */
export function classifyLayer(importance: number, config: LifecycleConfig): MemoryLayer {
  if (importance >= config.layers.long_term_threshold) return 'long_term';
  if (importance >= config.layers.short_term_threshold) return 'short_term';
  return 'working';
}

/** 0 working, 1 short_term, 2 long_term. */
export function layerRank(layer: MemoryLayer): number {
  return ORDER.indexOf(layer);
}

/** One layer up (long_term stays). */
export function nextLayer(layer: MemoryLayer): MemoryLayer {
  return ORDER[Math.min(ORDER.length - 1, layerRank(layer) + 1)] as MemoryLayer;
}

import type { MemoryLayer } from '../memory.constants';
import { layerRank, classifyLayer } from './layers';
import type { LifecycleConfig } from './lifecycle-config';
import { initialRetention, layerStrengthDays } from './retention';
import { reviewSchedule } from './review';

/** The lifecycle fields a memory is written with (seed 001 §2: classification and initialisation). */
export interface EncodedLifecycle {
  importance_score: number;
  layer: MemoryLayer;
  initial_retention: number;
  current_retention: number;
  retention_at: Date;
  strength_days: number;
  last_reviewed: Date;
  review_schedule: Date[];
  next_review: Date | null;
  review_count: number;
}

/**
 * Classification and parameter initialisation of a new memory (seed 001 §2): its layer from
 * importance; initial and current retention `1.0 × importance` anchored at its birth; the
 * strength of its layer (× the synaptic factor when it comes out of consolidation); the review
 * schedule fixed from birth, with `next_review` its first slot (an import whose event time lies
 * in the past has that slot due already, as if the time had passed).
 *
 * @param input.bornAt when its life began: when it was stored (libs/memory write `newMemory`)
 * @param input.layer the layer it is stored in when not the one its importance gives (a
 *   generalised semantic memory is long-term from the start, seed 000): the strength is this
 *   layer's, so a long-term memory never carries a short-term strength
 */
export function encodeLifecycle(
  input: { importance: number; bornAt: Date; synaptic?: boolean; layer?: MemoryLayer },
  config: LifecycleConfig,
): EncodedLifecycle {
  const layer = input.layer ?? classifyLayer(input.importance, config);
  const retention = initialRetention(input.importance, config);
  const schedule = reviewSchedule(input.bornAt, input.importance, config);
  return {
    importance_score: input.importance,
    layer,
    initial_retention: retention,
    current_retention: retention,
    retention_at: input.bornAt,
    strength_days: layerStrengthDays(layer, config) * (input.synaptic ? config.consolidation.synaptic_factor : 1),
    last_reviewed: input.bornAt,
    review_schedule: schedule,
    // Slots that pass unread (a memory read weeks later) collapse into one review, due at the next access.
    next_review: schedule[0] ?? null,
    review_count: 0,
  };
}

/**
 * Re-encoding when a memory's importance changes.
 *
 * - Rescored (new content, scored again): the layer it classifies into unless the memory already
 *   sits higher (a rescore never demotes), retention re-anchored at `now` to the higher of what was
 *   left and the new initial retention.
 * - Set by the writer (`explicit`): a correction, taken as given: the layer follows the new
 *   importance either way, initial retention is reset, and retention now moves to the new initial
 *   retention when raised or is capped by it when lowered.
 *
 * The review schedule stays as fixed at creation.
 */
export function reencodeLifecycle(
  current: { layer: MemoryLayer; synaptic: boolean },
  retentionNow: number,
  importance: number,
  now: Date,
  config: LifecycleConfig,
  explicit = false,
): Pick<EncodedLifecycle, 'importance_score' | 'layer' | 'current_retention' | 'retention_at' | 'strength_days'> & { initial_retention?: number } {
  const classified = classifyLayer(importance, config);
  const initial = initialRetention(importance, config);
  const layer = explicit || layerRank(classified) > layerRank(current.layer) ? classified : current.layer;
  const strength = layerStrengthDays(layer, config) * (current.synaptic ? config.consolidation.synaptic_factor : 1);
  if (explicit) {
    return {
      importance_score: importance,
      layer,
      initial_retention: initial,
      current_retention: initial >= retentionNow ? initial : Math.min(retentionNow, initial),
      retention_at: now,
      strength_days: strength,
    };
  }
  return { importance_score: importance, layer, current_retention: Math.max(retentionNow, initial), retention_at: now, strength_days: strength };
}

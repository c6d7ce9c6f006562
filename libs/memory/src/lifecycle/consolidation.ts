import type { ImportancePath, ImportanceResult } from './importance';
import type { LifecycleConfig } from './lifecycle-config';

/** The five signals of seed 000 `evaluate_for_consolidation`, each 0..1. */
export interface ConsolidationSignals {
  repetition: number;
  importance: number;
  emotion: number;
  association: number;
  utility: number;
}

/** What made an STM entry move to long-term memory (seed 000 `consolidation_triggers`). */
export type ConsolidationTrigger = 'repetition' | 'importance' | 'emotion' | 'explicit_save' | 'sleep_cycle' | 'capacity' | 'stm_timeout';

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Mentions as a 0..1 signal: saturates at the repetition trigger (3 mentions = 1). */
export function repetitionSignal(mentions: number, config: LifecycleConfig): number {
  return clamp01(mentions / config.consolidation.triggers.repetition);
}

/**
 * Seed 000: score = 0.2·repetition + 0.3·importance + 0.2·emotion + 0.15·association + 0.15·utility;
 * above 0.65 an entry consolidates.
 */
export function consolidationScore(s: ConsolidationSignals, config: LifecycleConfig): number {
  const w = config.consolidation.weights;
  return clamp01(w.repetition * s.repetition + w.importance * s.importance + w.emotion * s.emotion + w.association * s.association + w.utility * s.utility);
}

/** The immediate triggers an entry meets (docs/design.md §4): repetition ≥ 3, importance ≥ 0.7, emotional weight ≥ 0.8. */
export function immediateTriggers(entry: { mentions: number; importance: number; emotion: number }, config: LifecycleConfig): ConsolidationTrigger[] {
  const t = config.consolidation.triggers;
  const out: ConsolidationTrigger[] = [];
  if (entry.mentions >= t.repetition) out.push('repetition');
  if (entry.importance >= t.importance) out.push('importance');
  if (entry.emotion >= t.emotion) out.push('emotion');
  return out;
}

/** Signals that a text will be useful later: a time, a date, a number, a plan or a commitment. */
export function utilitySignal(text: string): number {
  let u = 0;
  if (/\b\d{1,2}(:\d{2})?\s*(am|pm)\b|\b\d{1,2}:\d{2}\b|오전|오후|\d+시/i.test(text)) u += 0.3;
  if (/\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next (week|month|year)|deadline|due)\b|내일|다음 주|마감|월요일|화요일|수요일|목요일|금요일|토요일|일요일/i.test(text)) u += 0.3;
  if (/\b(will|going to|plan(ning)?|need to|have to|must|should|remind|meeting|appointment|schedule)\b|해야|예정|계획|회의|약속/i.test(text)) u += 0.3;
  if (/\d/.test(text)) u += 0.1;
  return clamp01(u);
}

export type StmDecision =
  | { action: 'stay' }
  | { action: 'consolidate'; trigger: ConsolidationTrigger }
  | { action: 'discard' };

/**
 * What the time-driven STM rules (docs/design.md §4) say about one entry at `now`:
 * - younger than 30 s: it stays (the STM minimum);
 * - an immediate trigger: it consolidates;
 * - 300 s or more in STM and a score above 0.65: the sleep cycle consolidates it;
 * - 1800 s in STM: it leaves, consolidated if its score is above 0.65, else discarded;
 * - otherwise it stays.
 */
export function stmDecision(
  entry: { entered_at: Date; mentions: number; importance: number; emotion: number; score: number },
  now: Date,
  config: LifecycleConfig,
): StmDecision {
  const c = config.consolidation;
  const seconds = (now.getTime() - entry.entered_at.getTime()) / 1000;
  if (seconds < c.stm_min_seconds) return { action: 'stay' };
  const [trigger] = immediateTriggers(entry, config);
  if (trigger) return { action: 'consolidate', trigger };
  if (seconds >= c.stm_max_seconds) return entry.score > c.threshold ? { action: 'consolidate', trigger: 'stm_timeout' } : { action: 'discard' };
  if (seconds >= c.sleep_cycle_min_seconds && entry.score > c.threshold) return { action: 'consolidate', trigger: 'sleep_cycle' };
  return { action: 'stay' };
}

/**
 * Attention (seed 000, sensory register → STM): a message passes when it says something (at
 * least `attention_min_words` content words) or stands out (salience = the largest of
 * importance, emotional weight and utility, at least `attention_threshold`).
 */
export function passesAttention(signals: { contentWords: number; importance: number; emotion: number; utility: number }, config: LifecycleConfig): boolean {
  const salience = Math.max(signals.importance, signals.emotion, signals.utility);
  return signals.contentWords >= config.stm.attention_min_words || salience >= config.stm.attention_threshold;
}

/**
 * The importance of the episode an STM entry consolidates into (ours; docs/design.md §4.3): the
 * entry's own, except that an entry moved by repetition or emotion (seed 000: what is rehearsed or
 * emotionally tagged goes to long-term memory whatever its importance) is at least as important
 * as `layers.short_term_threshold` (0.6), path `consolidation`: otherwise a fact said three times
 * was stored with importance 0, retention 0, and forgotten at the first sweep after its grace.
 *
 * @returns the score (0..1) and the path that set it
 */
export function episodeImportance(entry: { importance: number; importance_source: ImportancePath }, trigger: ConsolidationTrigger, config: LifecycleConfig): ImportanceResult {
  const floor = config.layers.short_term_threshold;
  if ((trigger === 'repetition' || trigger === 'emotion') && entry.importance < floor) return { score: floor, path: 'consolidation' };
  return { score: entry.importance, path: entry.importance_source };
}


import type { MemoryPriority } from '../memory.constants';
import { factScore, factSignals, type FactContext } from './facts';
import type { LifecycleConfig } from './lifecycle-config';
import { escapeRegExp } from '../visible-text';

/**
 * Which path produced an importance score (seed 001 §1.2, "dual-path scoring"): the writer's own
 * value, the LLM (JSON, or its regex fallback), the rule engine, the explicit-save floor when
 * that was higher than what the scorer said, the floor of a consolidation by repetition or emotion
 * (docs/design.md §4.3), or a fact the LLM extracted at consolidation.
 */
export const IMPORTANCE_PATHS = ['caller', 'explicit_save', 'llm', 'llm_regex', 'rules', 'consolidation', 'llm_facts'] as const;
export type ImportancePath = (typeof IMPORTANCE_PATHS)[number];

/**
 * An explicit save is at least `floor` important (docs/design.md §4.1: explicit saves are LTM at once);
 * a higher score from the scorer stands.
 */
export function withExplicitSaveFloor(result: ImportanceResult, floor: number): ImportanceResult {
  return result.path === 'caller' || result.score >= floor ? result : { ...result, score: floor, path: 'explicit_save' };
}

export interface ImportanceResult {
  /** 0..1 */
  score: number;
  path: ImportancePath;
  /** The LLM's six dimension scores, 0..1 each, when it gave them. */
  criteria?: Record<string, number>;
  reasoning?: string;
}

export const IMPORTANCE_CRITERIA = ['relevance', 'novelty', 'emotional_impact', 'actionable', 'factual', 'personal'] as const;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;

/** How many of the keywords occur: English (and other spaced scripts) as whole words, Korean as substrings. */
export function countKeywords(content: string, keywords: readonly string[]): number {
  const lower = content.toLowerCase();
  let n = 0;
  for (const keyword of keywords) {
    const k = keyword.toLowerCase();
    const found = HANGUL.test(k) ? lower.includes(k) : new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(k)}($|[^\\p{L}\\p{N}])`, 'u').test(lower);
    if (found) n += 1;
  }
  return n;
}

/**
 * The rule engine (seed 001 §1.2), always available: content longer than 100 characters +0.1
 * (else longer than 50 +0.05); each importance keyword present +0.1; a `?` +0.05; a `!` +0.05;
 * priority high +0.2, medium +0.1; capped at 1.0. Seed 002's `high` and `critical` count as high;
 * its default `normal` and `low` add nothing (seed 002 has no medium).
 *
 * @returns a score in 0..1
 */
export function scoreByRules(content: string, meta: { priority?: MemoryPriority }, config: LifecycleConfig): number {
  const r = config.importance.rules;
  const length = [...content].length;
  let score = 0;
  if (length > r.long_content_chars) score += r.long_content_bonus;
  else if (length > r.medium_content_chars) score += r.medium_content_bonus;
  score += r.keyword_bonus * countKeywords(content, config.importance.keywords);
  if (content.includes('?')) score += r.question_bonus;
  if (content.includes('!')) score += r.exclamation_bonus;
  if (meta.priority === 'high' || meta.priority === 'critical') score += r.high_priority_bonus;
  // Round away float noise (0.1 + 0.2) so equal inputs give equal, printable scores.
  return clamp01(Math.round(score * 1e9) / 1e9);
}

/**
 * The rule path as the service runs it (docs/lifecycle.md "Importance"): seed 001's rule score
 * ({@link scoreByRules}) plus the fact score of the text (libs/memory facts.ts, weights
 * `importance.facts`), capped at 1. With every fact weight 0 it is seed 001's rule engine exactly.
 *
 * @param meta.previous the conversation's message before this one (its speaker and text), when known
 * @param meta.speaker this message's speaker
 * @param meta.role its role: the fact score applies to `user` messages (and to text without a role); an
 *   assistant's, a system's or a tool's message gets seed 001's rules alone
 *
 * @returns a score in 0..1
 */
export function scoreByRulesAndFacts(content: string, meta: { priority?: MemoryPriority } & FactContext, config: LifecycleConfig): number {
  const text = content.normalize('NFC');
  // An assistant's "I love helping" is not a fact about the user: its messages get seed 001's rules alone.
  const facts = meta.role === undefined || meta.role === 'user' ? factScore(factSignals(text, meta), config.importance.facts) : 0;
  const score = scoreByRules(text, meta, config) + facts;
  return clamp01(Math.round(score * 1e9) / 1e9);
}

/** The weighted mean of whichever criteria are present (weights renormalised over them). */
export function weightedCriteria(criteria: Record<string, unknown>, config: LifecycleConfig): number | undefined {
  let sum = 0;
  let weight = 0;
  for (const name of IMPORTANCE_CRITERIA) {
    const v = criteria[name];
    if (typeof v === 'number' && Number.isFinite(v)) {
      sum += config.importance.weights[name] * clamp01(v);
      weight += config.importance.weights[name];
    }
  }
  return weight > 0 ? clamp01(sum / weight) : undefined;
}

/**
 * Reads an LLM's answer (seed 001 §1.2, three-level fallback; levels 1 and 2 here):
 * 1. JSON: `importance_score`, or else the weighted mean of the `criteria_scores` present → `llm`;
 * 2. a regex on the `importance_score` field of text that is not valid JSON → `llm_regex`;
 * 3. `undefined`: the caller falls back to the rule engine.
 */
export function parseLlmImportance(text: string, config: LifecycleConfig): ImportanceResult | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const json = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
      const criteria = typeof json.criteria_scores === 'object' && json.criteria_scores !== null ? (json.criteria_scores as Record<string, unknown>) : {};
      const numeric = Object.fromEntries(
        Object.entries(criteria).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])).map(([k, v]) => [k, clamp01(v)]),
      );
      const reasoning = typeof json.reasoning === 'string' ? json.reasoning : undefined;
      const direct = Number(json.importance_score);
      if (json.importance_score !== undefined && json.importance_score !== null && Number.isFinite(direct)) {
        return { score: clamp01(direct), path: 'llm', criteria: numeric, reasoning };
      }
      const mean = weightedCriteria(criteria, config);
      if (mean !== undefined) return { score: mean, path: 'llm', criteria: numeric, reasoning };
    } catch {
      // not JSON: try the regex
    }
  }
  const m = /["']?importance_score["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?|\.\d+)/i.exec(text);
  if (m) return { score: clamp01(Number(m[1])), path: 'llm_regex' };
  return undefined;
}

/** The chat messages asking an LLM for the six-dimension JSON (seed 001 §1.1). */
export function importancePrompt(content: string, meta: { category?: string; priority?: string }): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content:
        'You rate how important a piece of information is for an AI assistant to remember about its user over the long term. ' +
        'Score six criteria from 0 to 1: relevance (to the user\'s goals and ongoing work), novelty (new information, not routine), ' +
        'emotional_impact, actionable (implies something to do, a deadline or a commitment), factual (concrete facts: names, times, places, numbers), ' +
        'personal (about the user themselves). The overall importance_score weighs them 0.30, 0.20, 0.15, 0.15, 0.10, 0.10. ' +
        'Answer with JSON only: {"importance_score": number, "reasoning": string, "criteria_scores": {"relevance": number, "novelty": number, ' +
        '"emotional_impact": number, "actionable": number, "factual": number, "personal": number}}',
    },
    {
      role: 'user',
      content: `${meta.category ? `Category: ${meta.category}\n` : ''}${meta.priority ? `Priority: ${meta.priority}\n` : ''}Content:\n${content}`,
    },
  ];
}

import { z } from 'zod';
import type { FactWeights } from './facts';
import { INVISIBLE, NOT_ONE_LINE, hasVisibleText } from '../visible-text';

/**
 * The shape and bounds of every lifecycle parameter (docs/design.md §4-§5), and the rules between them
 * (thresholds ordered, weights not all 0, review intervals increasing). The defaults are in
 * lifecycle-defaults.ts; a tenant's effective config is validated against this as a whole.
 */

const unit = z.number().min(0).max(1);
/** A fact signal's weight: negative for chatter. */
const weight = z.number().min(-1).max(1);
const multiplier = z.number().positive().max(10);
/** Bounded so that every derived time stays a real date (review slots, strengths, windows). */
const hours = z.number().positive().max(87_600, { message: 'must be at most 87600 hours (10 years)' });
const MAX_DAYS = 36_500;
const MAX_FACTOR = 1000;
const MAX_SYNAPTIC_FACTOR = 10;
/**
 * The longest strength (days) a memory can have under any valid settings: the largest base
 * strength × the largest layer coefficient × the largest synaptic factor. What an import may
 * bring; beyond it the retention maths would overflow.
 */
export const MAX_STRENGTH_DAYS = MAX_DAYS * MAX_FACTOR * MAX_SYNAPTIC_FACTOR;

const days = z.number().positive().max(MAX_DAYS, { message: 'must be at most 36500 days (100 years)' });
const seconds = z.number().min(0).max(31_536_000, { message: 'must be at most 31536000 seconds (a year)' });
const factor = z.number().positive().max(MAX_FACTOR);
const layerNumbers = z.object({ working: factor, short_term: factor, long_term: factor }).strict();

export const lifecycleConfigSchema = z
  .object({
    importance: z
      .object({
        /** LLM path: six dimensions and their weights (seed 001 §1.1). */
        weights: z
          .object({ relevance: unit, novelty: unit, emotional_impact: unit, actionable: unit, factual: unit, personal: unit })
          .strict(),
        /** Rule engine (seed 001 §1.2). Lengths in characters. */
        rules: z
          .object({
            long_content_chars: z.number().int().min(1),
            long_content_bonus: unit,
            medium_content_chars: z.number().int().min(1),
            medium_content_bonus: unit,
            keyword_bonus: unit,
            question_bonus: unit,
            exclamation_bonus: unit,
            high_priority_bonus: unit,
            medium_priority_bonus: unit,
          })
          .strict(),
        /**
         * The rule path's fact score (libs/memory facts.ts; ours, tuned on LoCoMo by
         * bench/tune-conversation.ts): a weight per fact signal (negative for chatter) and a bias,
         * added to seed 001's rule score. All 0 gives seed 001's rule engine exactly.
         */
        facts: z
          .object({
            first_person: weight,
            self_statement: weight,
            domain: weight,
            preference: weight,
            plan: weight,
            decision: weight,
            correction: weight,
            time: weight,
            number: weight,
            named: weight,
            reaction: weight,
            question: weight,
            length: weight,
            first_person_words: weight,
            second_person: weight,
            exclamations: weight,
            image: weight,
            life_fact: weight,
            answers_question: weight,
            bias: weight,
          } satisfies Record<keyof FactWeights | 'bias', typeof weight>)
          .strict(),
        /** Words that mark importance; English matched as whole words, Korean as substrings. */
        keywords: z
          .array(
            z
              .string()
              .min(1)
              .max(64)
              .refine((w) => w.trim() === w && w.trim() !== '', { message: 'must be a word without spaces around it' })
              .refine((w) => w.normalize('NFC') === w, { message: 'must be in Unicode NFC (composed) form' })
              // A tag's characters (visible-text): they never match a message's words; ZWJ and ZWNJ only inside a word.
              .refine(hasVisibleText, { message: 'must have a visible character' })
              .refine((w) => !NOT_ONE_LINE.test(w) && !INVISIBLE.test(w), { message: 'must not contain control, line-breaking, bidirectional or invisible characters (newline, tab, zero-width space, soft hyphen)' }),
          )
          .max(500)
          .superRefine((words, ctx) => {
            // Matching ignores case: a repeat would weigh nothing more, and hides a typo's intent.
            const seen = new Set<string>();
            words.forEach((word, i) => {
              const folded = word.toLowerCase();
              if (seen.has(folded)) ctx.addIssue({ code: 'custom', path: [i], message: `repeats "${word}"` });
              seen.add(folded);
            });
          }),
        /**
         * The least importance of an explicit save (a keyed `POST /memory` without `importance`):
         * saving is itself the sign that it matters (seed 000 `explicit_save_command`; docs/design.md §4.1
         * "explicit saves are LTM at once"). The default 0.8 puts them in long_term; 0 scores them
         * like any other text.
         */
        explicit_save_floor: unit,
      })
      .strict(),
    layers: z.object({ long_term_threshold: unit, short_term_threshold: unit }).strict(),
    retention: z
      .object({
        preset: z.enum(['seed', 'calibrated']),
        /** `initial_retention = initial_retention × importance` (seed 001 §2.2.1). */
        initial_retention: z.number().min(0.01).max(1),
        base_strength_days: days,
        coefficients: layerNumbers,
        /** `S_eff = S·(1 + access_reinforcement·ln(1 + access_count))`, at most `access_cap·S`. */
        access_reinforcement: z.number().min(0).max(10),
        access_cap: z.number().min(1).max(100),
      })
      .strict(),
    review: z
      .object({
        /** Base review intervals, hours (seed 001 §2.2.3). */
        base_intervals_hours: z.array(hours).min(1).max(20),
        /** `interval × (1 − importance × importance_factor)`. */
        importance_factor: z.number().min(0).max(0.99),
        min_interval_hours: hours,
        /** On a due review: `R ← min(1, R + reinforcement·(1 − R))`. */
        reinforcement: unit,
      })
      .strict(),
    promotion: z.object({ access_count: z.number().int().min(1).max(1_000_000), age_hours: hours, importance: unit }).strict(),
    forgetting: z
      .object({
        soft_threshold: unit,
        eviction_threshold: unit,
        /**
         * Days a memory must have been stored before it can be evicted (deleted). Eviction cannot
         * be undone: an import of old events, whose retention is low on arrival, gets this long
         * to be used (and soft-forgetting, which can, acts meanwhile).
         */
        eviction_min_stored_days: z.number().min(0).max(36_500),
        /** Search rank multiplier of a soft-forgotten memory. */
        forgotten_rank_factor: unit,
      })
      .strict(),
    consolidation: z
      .object({
        weights: z.object({ repetition: unit, importance: unit, emotion: unit, association: unit, utility: unit }).strict(),
        threshold: unit,
        triggers: z.object({ repetition: z.number().int().min(1).max(1000), importance: unit, emotion: unit }).strict(),
        stm_min_seconds: seconds,
        stm_max_seconds: seconds.refine((s) => s > 0, { message: 'must be positive' }),
        sleep_cycle_min_seconds: seconds,
        /** Synaptic consolidation: strength × synaptic_factor once, within synaptic_window_hours. */
        synaptic_factor: z.number().min(1).max(MAX_SYNAPTIC_FACTOR),
        synaptic_window_hours: hours,
        /** Word-set similarity (0..1) at which a new episode reinforces an existing memory instead. */
        near_duplicate_similarity: unit,
      })
      .strict(),
    stm: z
      .object({
        /**
         * Attention (seed 000 sensory register → STM): a message enters STM when it has at least
         * `attention_min_words` content words, or when its salience (the largest of importance,
         * emotional weight and utility) reaches `attention_threshold`; the rest is chatter.
         */
        attention_threshold: unit,
        attention_min_words: z.number().int().min(0).max(50),
        capacity: z.number().int().min(5).max(9),
        initial_decay_factor: z.number().gt(0, { message: 'must be above 0' }).max(1),
        rehearsal_factor: z.number().min(1).max(2),
        chunk_max_items: z.number().int().min(2).max(9),
        /**
         * A message's emotional weight in STM is the lexical estimate × `emotion_scale`, and ×
         * `reaction_emotion` more for a mere reaction ("Wow, that's amazing!" reads as strongly
         * emotional to the lexicon; ours, tuned with the fact weights). `emotion_scale` is at
         * least 0.8 so that the emotion trigger (at most 0.8) stays reachable.
         */
        emotion_scale: z.number().min(0.8).max(1),
        reaction_emotion: unit,
      })
      .strict(),
    systems: z
      .object({
        neocortex_age_days: days,
        hippocampus_factor: unit,
        abstraction_level: z.number().min(1).max(5),
        context_dependency: unit,
        generalization: unit,
        /** Word similarity (0..1) at which two episodes belong to one cluster. */
        cluster_similarity: unit,
        /** Fewest episodes a generalisation is made from. */
        cluster_min_size: z.number().int().min(2).max(50),
      })
      .strict(),
    tiers: z.object({ hot: factor, warm: factor, cold: factor, grace_days: z.number().min(0).max(36_500) }).strict(),
    /** The association graph (docs/design.md §6.8; seed 000 associations): built in the background, followed by search. */
    associations: z
      .object({
        /** Whether the background job links memories (off: no new links; search still follows the ones there are). */
        build: z.boolean(),
        /** Links a memory gets of each relation when it is linked (its nearest, its rarest names). */
        per_relation: z.number().int().min(1).max(50),
        /** Cosine similarity (0..1) a `similar_to` link needs. */
        similar_min: unit,
        /** A named thing in more than this share of the mind's memories links nothing (a speaker, a topic of every memory). */
        entity_max_share: z.number().gt(0).max(1),
        /** Whether search follows the top hits' links one hop (off: no expansion). */
        expand: z.boolean(),
        /** Top hits of each branch (full text, vectors) whose links search follows. */
        expand_from: z.number().int().min(1).max(100),
        /** A linked memory takes weight × the link's weight × its hit's branch score (like a temporal neighbour). */
        weights: z
          .object({ similar_to: unit, precedes: unit, follows: unit, shares_entity: unit, causes: unit, effects: unit })
          .strict(),
      })
      .strict(),
    /** Hybrid retrieval (docs/design.md §6). */
    retrieval: z
      .object({
        /** Reciprocal rank fusion: score = Σ weight / (rrf_k + rank). */
        rrf_k: z.number().int().min(1).max(1000),
        text_weight: z.number().min(0).max(10),
        vector_weight: z.number().min(0).max(10),
        /** Candidates each branch (full text, vectors) brings to the fusion. */
        candidates: z.number().int().min(10).max(1000),
        /** Nearest vectors less similar than this (cosine, 0..1) are not candidates: they are noise. */
        min_vector_similarity: unit,
        /** BM25 over the full-text index: term saturation and length normalisation. */
        bm25_k1: z.number().min(0).max(10),
        bm25_b: unit,
        /**
         * Temporal contiguity (seed 000 temporal_context/temporal_position): a memory takes
         * `adjacent` × the scores of its neighbours one position away and `second` × two away, in
         * the same context; `forward` (0..1) is the part of that taken from the ones before it
         * (0.5: symmetric). Recall runs forward in time (Kahana 1996, the asymmetry of the
         * contiguity effect): in a conversation what was said before cues the answer after it.
         */
        neighbor_weights: z.object({ adjacent: unit, second: unit, forward: unit }).strict(),
        /** Multiplier for a memory one of whose tags the query names. */
        tag_boost: z.number().min(1).max(10),
        /** After fusion: × (1 − w + w·R_now) and × (1 − w + w·importance). */
        retention_weight: unit,
        importance_weight: unit,
        /** Multipliers of a memory's score by its priority, each in (0, 10] (as tag_boost). */
        priority_weights: z.object({ low: multiplier, normal: multiplier, high: multiplier, critical: multiplier }).strict(),
        /** The share of a mind (0..1] a query may match in `any` mode (libs/memory matchBudget). */
        match_share: z.number().gt(0).max(1),
        /** Minds with fewer memories than this scan vectors exactly; larger ones use the HNSW index. */
        exact_scan_below: z.number().int().min(0).max(100_000_000),
        /** HNSW's candidate list per query (pgvector `hnsw.ef_search`): larger finds the true nearest more often, slower. */
        ef_search: z.number().int().min(10).max(1000),
      })
      .strict(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.layers.short_term_threshold > c.layers.long_term_threshold) {
      ctx.addIssue({ code: 'custom', path: ['layers', 'short_term_threshold'], message: 'must not exceed long_term_threshold' });
    }
    if (c.forgetting.eviction_threshold > c.forgetting.soft_threshold) {
      ctx.addIssue({ code: 'custom', path: ['forgetting', 'eviction_threshold'], message: 'must not exceed soft_threshold' });
    }
    if (!(c.tiers.hot > c.tiers.warm && c.tiers.warm > c.tiers.cold)) {
      ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'must satisfy hot > warm > cold' });
    }
    if (c.consolidation.stm_min_seconds > c.consolidation.stm_max_seconds) {
      ctx.addIssue({ code: 'custom', path: ['consolidation', 'stm_min_seconds'], message: 'must not exceed stm_max_seconds' });
    }
    const k = c.retention.coefficients;
    if (!(k.working <= k.short_term && k.short_term <= k.long_term)) {
      ctx.addIssue({ code: 'custom', path: ['retention', 'coefficients'], message: 'must satisfy working ≤ short_term ≤ long_term (higher layers decay slower)' });
    }
    if (Object.values(c.importance.weights).every((w) => w === 0)) {
      ctx.addIssue({ code: 'custom', path: ['importance', 'weights'], message: 'must not all be 0' });
    }
    // Both at 0, every fused score is 0 and search answers nothing (a newcomer's).
    if (c.retrieval.text_weight === 0 && c.retrieval.vector_weight === 0) {
      ctx.addIssue({ code: 'custom', path: ['retrieval', 'text_weight'], message: 'must not be 0 while vector_weight is 0: search would find nothing' });
    }
    if (Object.values(c.consolidation.weights).every((w) => w === 0)) {
      ctx.addIssue({ code: 'custom', path: ['consolidation', 'weights'], message: 'must not all be 0' });
    }
    const intervals = c.review.base_intervals_hours;
    if (intervals.some((h, i) => i > 0 && h <= (intervals[i - 1] ?? 0))) {
      ctx.addIssue({ code: 'custom', path: ['review', 'base_intervals_hours'], message: 'must increase strictly' });
    }
  });

export type LifecycleConfig = z.infer<typeof lifecycleConfigSchema>;

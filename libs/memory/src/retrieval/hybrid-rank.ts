import { foldAccents } from '../accents';
import type { MemoryPriority } from '../memory.constants';
import type { AssociationRelation } from '../associations';
import type { LifecycleConfig } from '../lifecycle/lifecycle-config';

/** A memory the search brought back, with what each branch said about it. */
export interface Candidate {
  id: string;
  /** BM25 over the full-text index; absent when full text did not match it. */
  bm25?: number;
  /** Cosine distance of its embedding to the query's (0 = same direction); absent when not among the nearest. */
  distance?: number;
  temporal_context: string | null;
  temporal_position: number | null;
  tags: readonly string[];
  /** Retention now, 0..1 (null when untracked: counts as 1). */
  retention: number | null;
  importance: number | null;
  priority: MemoryPriority;
  forgotten: boolean;
}

/** A link from a candidate (`source`, one of the branches' best hits) to another (`target`): what the target is to the source, 0..1. */
export interface CandidateLink {
  source: string;
  target: string;
  relation: AssociationRelation;
  weight: number;
}

/** A link that brought score to a hit: from which memory, how it is related to it, and the link's weight. */
export interface AssociationPath {
  from: string;
  relation: AssociationRelation;
  weight: number;
}

/** How a hit's score came about (`?explain=true`). */
export interface Explanation {
  text: { bm25: number; smoothed: number; rank: number | null };
  vector: { distance: number | null; similarity: number; smoothed: number; rank: number | null };
  tag_boost: number;
  /** The links (association graph, one hop) through which other hits gave it score; empty when none. */
  associations: AssociationPath[];
  rrf: number;
  retention_factor: number;
  importance_factor: number;
  priority_factor: number;
  forgotten_factor: number;
  score: number;
}

export interface RankedHit {
  id: string;
  score: number;
  explain: Explanation;
}

/** A text's words as tags are matched: lower-cased, accents folded (as search reads text), letters and digits, one space apart. */
function tagWords(text: string): string {
  return (foldAccents(text.toLowerCase()).match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/** Words of a query as tags are matched against them ({@link tagWords}), spaced at both ends. */
export function queryWords(query: string): string {
  return ` ${tagWords(query)} `;
}

/**
 * Tags that name a message's role, which the conversation stream gives the episodes of speakers
 * with no name: "the user" in a question means the person, not a topic, and boosting every
 * episode tagged `user` pushed the one keyed fact that answered "where does the user work" to
 * the last place (a newcomer's report).
 */
const ROLE_TAGS = new Set(['user', 'assistant', 'system', 'tool']);

/** True when the query names the tag (as a whole word or phrase); never for a role tag ({@link ROLE_TAGS}). */
export function queryNamesTag(words: string, tag: string): boolean {
  const t = tagWords(tag);
  return t.length > 0 && !ROLE_TAGS.has(t) && words.includes(` ${t} `);
}

/** Whether a candidate has a place in time (a temporal context and a position in it): only then can it have neighbours. */
function placed(c: Candidate): c is Candidate & { temporal_context: string; temporal_position: number } {
  return c.temporal_context !== null && c.temporal_position !== null;
}

/** For each candidate, its neighbours in time among the candidates: [index, weight] pairs. */
function neighbourhoods(candidates: readonly Candidate[], weights: { adjacent: number; second: number; forward: number }): [number, number][][] {
  const byContext = new Map<string, Map<number, number>>();
  candidates.forEach((c, i) => {
    if (!placed(c)) return;
    let places = byContext.get(c.temporal_context);
    if (!places) byContext.set(c.temporal_context, (places = new Map()));
    places.set(c.temporal_position, i);
  });
  return candidates.map((c) => {
    const out: [number, number][] = [];
    if (!placed(c)) return out;
    const places = byContext.get(c.temporal_context);
    if (!places) return out;
    // forward > 0.5: a memory takes more from the one before it (what came before cues what follows).
    const f = weights.forward;
    for (const [d, w] of [[1, weights.adjacent], [2, weights.second]] as const) {
      if (w === 0) continue;
      const before = places.get(c.temporal_position - d);
      const after = places.get(c.temporal_position + d);
      if (before !== undefined) out.push([before, 2 * f * w]);
      if (after !== undefined) out.push([after, 2 * (1 - f) * w]);
    }
    return out;
  });
}

/**
 * The association graph's edges among the candidates (docs/design.md §6.8): the link's target
 * takes `weights[relation]` × the link's weight × its source's score, as a temporal neighbour does.
 */
function withLinks(near: [number, number][][], index: ReadonlyMap<string, number>, links: readonly CandidateLink[], weights: Readonly<Record<AssociationRelation, number>>): [number, number][][] {
  if (links.length === 0) return near;
  const out = near.map((n) => [...n]);
  for (const l of links) {
    const source = index.get(l.source);
    const target = index.get(l.target);
    const w = (weights[l.relation] ?? 0) * l.weight;
    if (source === undefined || target === undefined || source === target || w <= 0) continue;
    (out[target] as [number, number][]).push([source, w]);
  }
  return out;
}

/**
 * What a memory with no place in time (no temporal context or position) is multiplied by in
 * {@link smooth}: 1 + the weights of a whole neighbourhood (2·adjacent + 2·second, whatever
 * `forward`), as if its neighbours were as relevant as itself. A keyed fact stands on its own; left
 * at ×1, a chat line saying the same thing outranked it by what was said around the line
 * (a newcomer's "what is the user's job": the saved fact fifth of five).
 */
export function placelessFactor(weights: { adjacent: number; second: number }): number {
  return 1 + 2 * weights.adjacent + 2 * weights.second;
}

/**
 * Temporal contiguity: each score plus `adjacent` × the scores of the memories one position away
 * and `second` × those two away, within the same temporal context (a recalled memory cues its
 * neighbours in time: seed 000's temporal index); a placeless memory's own score × `placeless`.
 */
function smooth(scores: Float64Array, near: readonly [number, number][][], self: Float64Array): Float64Array {
  const out = new Float64Array(scores.length);
  for (let i = 0; i < scores.length; i++) {
    let s = (scores[i] as number) * (self[i] as number);
    for (const [j, w] of near[i] as [number, number][]) s += w * (scores[j] as number);
    out[i] = s;
  }
  return out;
}

/** 1-based ranks of the positive scores, best first (ties by id), the first `limit` only; 0 = unranked. */
function ranks(scores: Float64Array, candidates: readonly Candidate[], limit: number): Int32Array {
  const order: number[] = [];
  for (let i = 0; i < scores.length; i++) if ((scores[i] as number) > 0) order.push(i);
  order.sort((a, b) => (scores[b] as number) - (scores[a] as number) || ((candidates[a] as Candidate).id < (candidates[b] as Candidate).id ? 1 : -1));
  const out = new Int32Array(scores.length);
  order.slice(0, limit).forEach((i, r) => (out[i] = r + 1));
  return out;
}

/**
 * Hybrid ranking (docs/design.md §6). Per branch (BM25 full text; vector similarity), scores are smoothed
 * over temporal neighbours (a memory with no place in time: ×{@link placelessFactor}) and multiplied by the tag boost when the query names one of the
 * memory's tags; each branch is ranked, and the ranks fused by reciprocal rank fusion
 * (`Σ weight / (k + rank)`, `retrieval.rrf_k`, 10). The fused score is then weighted by retention now,
 * importance and priority, and ×0.1 for a soft-forgotten memory. With `links` (the association
 * graph's edges from the best hits), a linked memory takes score from its source as a temporal
 * neighbour does, by `associations.weights` of the relation × the link's weight.
 *
 * @returns the best `limit` candidates with a positive score, best first (ties by id), each with
 *   its explanation.
 */
export function rankHybrid(candidates: readonly Candidate[], query: string, config: LifecycleConfig, limit = Infinity, links: readonly CandidateLink[] = []): RankedHit[] {
  const r = config.retrieval;
  const words = queryWords(query);
  const n = candidates.length;
  const tagFactor = new Float64Array(n);
  const text = new Float64Array(n);
  const similarity = new Float64Array(n);
  candidates.forEach((c, i) => {
    tagFactor[i] = c.tags.some((t) => queryNamesTag(words, t)) ? r.tag_boost : 1;
    text[i] = c.bm25 ?? 0;
    similarity[i] = c.distance === undefined ? 0 : Math.max(0, 1 - c.distance);
  });
  const ids = new Map(candidates.map((c, i) => [c.id, i]));
  const near = withLinks(neighbourhoods(candidates, r.neighbor_weights), ids, links, config.associations.weights);
  const placeless = placelessFactor(r.neighbor_weights);
  const self = Float64Array.from(candidates, (c) => (placed(c) ? 1 : placeless));
  const textSmoothed = smooth(text, near, self);
  const vectorSmoothed = smooth(similarity, near, self);
  for (let i = 0; i < n; i++) {
    textSmoothed[i] = (textSmoothed[i] as number) * (tagFactor[i] as number);
    vectorSmoothed[i] = (vectorSmoothed[i] as number) * (tagFactor[i] as number);
  }
  const textRank = ranks(textSmoothed, candidates, r.candidates);
  const vectorRank = ranks(vectorSmoothed, candidates, r.candidates);
  const score = new Float64Array(n);
  const order: number[] = [];
  candidates.forEach((c, i) => {
    const tr = textRank[i] as number;
    const vr = vectorRank[i] as number;
    const rrf = (tr ? r.text_weight / (r.rrf_k + tr) : 0) + (vr ? r.vector_weight / (r.rrf_k + vr) : 0);
    if (rrf <= 0) return;
    score[i] = rrf * factors(c, r, config).product;
    order.push(i);
  });
  order.sort((a, b) => (score[b] as number) - (score[a] as number) || ((candidates[a] as Candidate).id < (candidates[b] as Candidate).id ? 1 : -1));
  // Explanations only for what is returned: a search weighs hundreds of candidates.
  // A link explains a hit only when its source had a score of its own to give.
  const given = (l: CandidateLink) => {
    const s = ids.get(l.source) ?? -1;
    return (text[s] ?? 0) > 0 || (similarity[s] ?? 0) > 0;
  };
  return order.slice(0, limit).map((i) => {
    const c = candidates[i] as Candidate;
    const tr = (textRank[i] as number) || null;
    const vr = (vectorRank[i] as number) || null;
    const f = factors(c, r, config);
    const rrf = (tr ? r.text_weight / (r.rrf_k + tr) : 0) + (vr ? r.vector_weight / (r.rrf_k + vr) : 0);
    return {
      id: c.id,
      score: score[i] as number,
      explain: {
        text: { bm25: c.bm25 ?? 0, smoothed: textSmoothed[i] as number, rank: tr },
        vector: { distance: c.distance ?? null, similarity: similarity[i] as number, smoothed: vectorSmoothed[i] as number, rank: vr },
        tag_boost: tagFactor[i] as number,
        associations: links
          .filter((l) => l.target === c.id && l.source !== c.id && (config.associations.weights[l.relation] ?? 0) * l.weight > 0 && given(l))
          .map((l) => ({ from: l.source, relation: l.relation, weight: l.weight })),
        rrf,
        retention_factor: f.retention,
        importance_factor: f.importance,
        priority_factor: f.priority,
        forgotten_factor: f.forgotten,
        score: score[i] as number,
      },
    };
  });
}

/** The weights after fusion (docs/design.md §6): retention now, importance, priority, forgotten ×0.1. */
function factors(c: Candidate, r: LifecycleConfig['retrieval'], config: LifecycleConfig) {
  const retention = 1 - r.retention_weight + r.retention_weight * (c.retention ?? 1);
  const importance = 1 - r.importance_weight + r.importance_weight * (c.importance ?? 0.5);
  const priority = r.priority_weights[c.priority];
  const forgotten = c.forgotten ? config.forgetting.forgotten_rank_factor : 1;
  return { retention, importance, priority, forgotten, product: retention * importance * priority * forgotten };
}

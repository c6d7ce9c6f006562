import type { MemoryPriority } from '../memory.constants';
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

/** How a hit's score came about (`?explain=true`). */
export interface Explanation {
  text: { bm25: number; smoothed: number; rank: number | null };
  vector: { distance: number | null; similarity: number; smoothed: number; rank: number | null };
  tag_boost: number;
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

/** Words of a query as tags are matched against them: lower-cased, letters and digits. */
export function queryWords(query: string): string {
  return ` ${(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ')} `;
}

/** True when the query names the tag (as a whole word or phrase). */
export function queryNamesTag(words: string, tag: string): boolean {
  const t = (tag.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
  return t.length > 0 && words.includes(` ${t} `);
}

/**
 * Temporal contiguity: each score plus `adjacent` × the scores of the memories one position away
 * and `second` × those two away, within the same temporal context (a recalled memory cues its
 * neighbours in time: seed 000's temporal index).
 */
function smooth(scores: Map<string, number>, candidates: readonly Candidate[], weights: { adjacent: number; second: number }): Map<string, number> {
  const byPlace = new Map<string, string>();
  for (const c of candidates) {
    if (c.temporal_context !== null && c.temporal_position !== null) byPlace.set(`${c.temporal_context}\u0000${c.temporal_position}`, c.id);
  }
  const out = new Map<string, number>();
  for (const c of candidates) {
    let s = scores.get(c.id) ?? 0;
    if (c.temporal_context !== null && c.temporal_position !== null) {
      for (const [d, w] of [[1, weights.adjacent], [2, weights.second]] as const) {
        for (const p of [c.temporal_position - d, c.temporal_position + d]) {
          const neighbor = byPlace.get(`${c.temporal_context}\u0000${p}`);
          if (neighbor) s += w * (scores.get(neighbor) ?? 0);
        }
      }
    }
    out.set(c.id, s);
  }
  return out;
}

function ranks(scores: Map<string, number>, limit: number): Map<string, number> {
  const ordered = [...scores.entries()].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1));
  return new Map(ordered.slice(0, limit).map(([id], i) => [id, i + 1]));
}

/**
 * Hybrid ranking (DESIGN §6). Per branch (BM25 full text; vector similarity), scores are smoothed
 * over temporal neighbours and multiplied by the tag boost when the query names one of the
 * memory's tags; each branch is ranked, and the ranks fused by reciprocal rank fusion
 * (`Σ weight / (k + rank)`, k = 60). The fused score is then weighted by retention now,
 * importance and priority, and ×0.1 for a soft-forgotten memory.
 *
 * @returns every candidate with a positive score, best first (ties by id), each with its explanation.
 */
export function rankHybrid(candidates: readonly Candidate[], query: string, config: LifecycleConfig): RankedHit[] {
  const r = config.retrieval;
  const words = queryWords(query);
  const tagFactor = new Map(candidates.map((c) => [c.id, c.tags.some((t) => queryNamesTag(words, t)) ? r.tag_boost : 1]));
  const text = new Map(candidates.map((c) => [c.id, c.bm25 ?? 0]));
  const similarity = new Map(candidates.map((c) => [c.id, c.distance === undefined ? 0 : Math.max(0, 1 - c.distance)]));
  const textSmoothed = smooth(text, candidates, r.neighbor_weights);
  const vectorSmoothed = smooth(similarity, candidates, r.neighbor_weights);
  for (const [id, f] of tagFactor) {
    textSmoothed.set(id, (textSmoothed.get(id) ?? 0) * f);
    vectorSmoothed.set(id, (vectorSmoothed.get(id) ?? 0) * f);
  }
  const textRank = ranks(textSmoothed, r.candidates);
  const vectorRank = ranks(vectorSmoothed, r.candidates);
  const hits: RankedHit[] = [];
  for (const c of candidates) {
    const tr = textRank.get(c.id) ?? null;
    const vr = vectorRank.get(c.id) ?? null;
    const rrf = (tr ? r.text_weight / (r.rrf_k + tr) : 0) + (vr ? r.vector_weight / (r.rrf_k + vr) : 0);
    if (rrf <= 0) continue;
    const retention = c.retention ?? 1;
    const retentionFactor = 1 - r.retention_weight + r.retention_weight * retention;
    const importanceFactor = 1 - r.importance_weight + r.importance_weight * (c.importance ?? 0.5);
    const priorityFactor = r.priority_weights[c.priority];
    const forgottenFactor = c.forgotten ? config.forgetting.forgotten_rank_factor : 1;
    const score = rrf * retentionFactor * importanceFactor * priorityFactor * forgottenFactor;
    hits.push({
      id: c.id,
      score,
      explain: {
        text: { bm25: c.bm25 ?? 0, smoothed: textSmoothed.get(c.id) ?? 0, rank: tr },
        vector: { distance: c.distance ?? null, similarity: similarity.get(c.id) ?? 0, smoothed: vectorSmoothed.get(c.id) ?? 0, rank: vr },
        tag_boost: tagFactor.get(c.id) ?? 1,
        rrf,
        retention_factor: retentionFactor,
        importance_factor: importanceFactor,
        priority_factor: priorityFactor,
        forgotten_factor: forgottenFactor,
        score,
      },
    });
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

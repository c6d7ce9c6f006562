/**
 * The full-text maths of hybrid search (docs/design.md §6): BM25 (Robertson and Spärck Jones;
 * the `1 +` form of Lucene, whose idf is never negative) over a mind's memories, with document
 * frequencies counted or estimated per mind and a budget on how many memories a query may match.
 * Pure: the SQL that counts and scores lives in libs/db's RetrievalRepository.
 */

/**
 * Bounds that keep the text branch's cost flat as a mind grows (bench/RESULTS.md, "scale"):
 * document frequencies are counted up to DF_COUNT_CAP memories (beyond, a lexeme's share in a
 * sample of the mind's STATS_SAMPLE newest memories, times the mind's size, estimates it); the
 * mean length comes from the same sample; and a query matches on its rarest lexemes whose
 * frequencies add up to at most MATCH_BUDGET memories (at least the rarest one), scoring at most
 * MATCH_BUDGET of them. A memory that shares only very common words with the query is left to
 * the vector branch: with BM25's idf those words weigh little anyway.
 */
export const DF_COUNT_CAP = 10_000;
export const STATS_SAMPLE = 2_000;
export const MATCH_BUDGET = 2_000;
/**
 * The least a query may match, whatever the share: a mind of a few dozen memories keeps every
 * word matchable (ours; below the budgets of the LoCoMo minds, 369-680 memories, that
 * `retrieval.match_share` was cross-validated on, so it does not change that measurement).
 */
export const MATCH_FLOOR = 30;

/** Full-text statistics of a mind as of a search: size, mean content length, document frequencies. */
export interface TextStats {
  /** Memories in the mind; never below any `df` (see {@link withDocumentFrequency}). */
  n: number;
  /** Mean content length in characters (of a sample of {@link STATS_SAMPLE} memories in larger minds). */
  avgdl: number;
  /** Memories holding each lexeme: exact up to {@link DF_COUNT_CAP}, estimated from the sample above it. */
  df: Map<string, number>;
}

/**
 * BM25's inverse document frequency `ln(1 + (n − df + 0.5) / (df + 0.5))`: > 0 whenever
 * `df ≤ n`, which {@link withDocumentFrequency} guarantees.
 *
 * @param n memories in the mind; @param df memories holding the lexeme
 */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * One lexeme's BM25 term weight: `idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))`.
 * The SQL of the text branch computes the same sum over a memory's lexemes.
 *
 * @param tf occurrences in the memory (≥ 1); @param dl its length in characters; @param avgdl the mind's mean
 */
export function bm25Term(idf: number, tf: number, dl: number, avgdl: number, k1: number, b: number): number {
  return (idf * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * dl) / avgdl));
}

/**
 * The statistics with a lexeme's counted document frequency. The mind's size may come from a
 * cache older than the count: the mind holds at least the memories counted, so `n` rises to
 * `df` (the one place that keeps every idf positive).
 */
export function withDocumentFrequency(stats: TextStats, lexeme: string, df: number): TextStats {
  stats.df.set(lexeme, df);
  stats.n = Math.max(stats.n, df);
  return stats;
}

/**
 * The document frequency of a lexeme too common to count (more than {@link DF_COUNT_CAP}
 * memories), estimated from its share of a sample: `max(DF_COUNT_CAP, round(share · n))`,
 * which stays ≤ n since counting it raised n to at least the cap.
 *
 * @param share 0..1, the sample's memories holding it
 */
export function estimatedDocumentFrequency(share: number, n: number): number {
  return Math.max(DF_COUNT_CAP, Math.round(share * n));
}

/**
 * How many memories a query may match in a mind of `n` (`any` mode): `share` of the mind
 * (`retrieval.match_share`), at most MATCH_BUDGET, at least MATCH_FLOOR. A smaller share scores fewer
 * memories that share only common words with the query (each matched memory costs its BM25 in
 * SQL); the vector branch still brings them.
 *
 * @param n the mind's memories; @param share 0..1
 */
export function matchBudget(n: number, share: number): number {
  return Math.min(MATCH_BUDGET, Math.max(MATCH_FLOOR, Math.ceil(share * n)));
}

/**
 * The lexemes `any` mode matches on: the query's rarest, in rising document frequency while
 * they add up to at most `budget` memories (at least the rarest one, whatever its frequency);
 * ties in alphabetical order so the choice is deterministic.
 */
export function matchLexemes(lexemes: readonly string[], df: ReadonlyMap<string, number>, budget = MATCH_BUDGET): string[] {
  const byRarity = [...lexemes].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || a.localeCompare(b));
  const chosen: string[] = [];
  let total = 0;
  for (const l of byRarity) {
    const n = df.get(l) ?? 0;
    if (chosen.length > 0 && total + n > budget) break;
    chosen.push(l);
    total += n;
  }
  return chosen;
}

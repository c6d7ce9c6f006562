import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '@engram/config';
import { MemoriesRepository, MindStatsRepository, RetrievalRepository, type MatchMode, type MemoryFilter, type MemoryRow, type TenantTx, type VectorScan } from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import {
  DF_COUNT_CAP,
  estimatedDocumentFrequency,
  matchBudget,
  newestFirstAmongVariants,
  rankHybrid,
  withDocumentFrequency,
  withoutExclusions,
  type Candidate,
  type Explanation,
  type LifecycleConfig,
  type TextStats,
} from '@engram/memory';
import { AccessRecorder } from './access-recorder.service';

/** One result of a hybrid search: the memory (with this access counted), its score and how it came about. */
export interface HybridHit {
  row: MemoryRow;
  score: number;
  explain: Explanation;
}

/** A search: text, how it matches, the query's vector (null: full text only), filter and how many hits. */
export interface HybridQuery {
  q: string;
  mode: MatchMode;
  vector: number[] | null;
  filter: MemoryFilter;
  limit: number;
}

const NEIGHBOUR_REACH = 2;
/** Hits whose statements of the same thing are put newest first before the limit cuts (libs/memory `newestFirstAmongVariants`). */
const VARIANT_WINDOW = 20;
/** How long a mind's size and full-text statistics are kept before they are counted again. */
const MIND_CACHE_MS = 60_000;
/** Minds one process keeps statistics for (bounded: least recently searched out first). */
const MIND_CACHE_MINDS = 10_000;
/** Document frequencies kept per mind (they travel with every query). */
const STATS_CACHE_WORDS = 1000;

/**
 * Statistics that count nothing: every lexeme the same idf, and lengths measured against the
 * query's own, so that a memory as long as the text looked for (its near-duplicate) is not
 * ranked down for its length.
 */
function uncountedStats(q: string, size: number): TextStats {
  return { n: size, avgdl: Math.max(1, q.length), df: new Map() };
}

/** What search knows of a mind between counts: its size and, once searched by text, its statistics. */
interface MindState {
  size: number;
  text?: TextStats;
}

/**
 * What a query looks for: in `all` mode (web-search syntax) the query without its exclusions
 * (libs/memory `withoutExclusions`), else the query. Its words and its embedding rank the results;
 * the whole query is the match.
 */
export function soughtText(query: Pick<HybridQuery, 'q' | 'mode'>): string {
  return query.mode === 'all' ? withoutExclusions(query.q) : query.q;
}

/**
 * Hybrid retrieval (docs/design.md §6): BM25 full text and nearest embeddings bring candidates,
 * their neighbours in time join them, and libs/memory `rankHybrid` fuses and weights them.
 * Vectors are scanned exactly in minds smaller than `retrieval.exact_scan_below` and through
 * HNSW (with `retrieval.ef_search`, iterating until enough of the mind's rows pass) above it. Every hit returned is an access unless the caller says otherwise. Runs inside
 * the caller's transaction.
 */
@Injectable()
export class HybridSearch {
  private readonly minds = new LRUCache<string, MindState>({ max: MIND_CACHE_MINDS, ttl: MIND_CACHE_MS });

  constructor(
    private readonly retrieval: RetrievalRepository,
    private readonly mindStats: MindStatsRepository,
    private readonly memories: MemoriesRepository,
    private readonly embedder: RequestEmbedder,
    private readonly accesses: AccessRecorder,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The query's vector, or null when the embedder cannot give one within `EMBEDDINGS_WAIT_MS`
   * (search goes on with full text) or the text has no features (an all-zero vector).
   */
  async queryVector(q: string): Promise<number[] | null> {
    const [v] = (await this.embedder.tryEmbed([q])).vectors;
    return v && v.some((x) => x !== 0) ? v : null;
  }

  /**
   * The best `query.limit` memories of the mind for the query, best first.
   *
   * @param options.access false: the hits are not accesses (a caller that uses only some records those itself)
   * @param options.statistics `uncounted`: no document frequency is counted and the per-mind cache
   *   is neither read nor written (every lexeme weighs alike): for a writer looking for what it
   *   is about to duplicate while the mind grows under it (the conversation stream), whose counts
   *   would be stale for every search after it
   * @param options.associations false: the association graph is not followed (a writer looking
   *   for near-duplicates wants what the text says, not what it is linked to)
   */
  async search(
    tx: TenantTx,
    mindId: string,
    query: HybridQuery,
    config: LifecycleConfig,
    options: { access?: boolean; statistics?: 'counted' | 'uncounted'; associations?: boolean } = {},
  ): Promise<HybridHit[]> {
    const r = config.retrieval;
    const counted = options.statistics !== 'uncounted';
    const mind: MindState = counted ? await this.mindState(tx, mindId) : { size: 0 };
    const scan: VectorScan = !query.vector || !counted || mind.size < r.exact_scan_below ? { exact: true } : { exact: false, efSearch: r.ef_search };
    // What ranks is what the query looks for: its exclusions exclude, never score (libs/memory withoutExclusions).
    const sought = soughtText(query);
    const lexemes = await this.retrieval.startSearch(tx, query.mode === 'vector' ? null : sought);
    const stats =
      query.mode === 'vector' || !counted ? (mind.text ?? uncountedStats(sought, mind.size)) : await this.textStats(tx, mindId, lexemes, mind);
    const now = this.clock.now();
    // Both branches, the vectors under the similarity floor left out, and what ranking needs of
    // the hits and their neighbours in time: one statement.
    // Uncounted statistics know no frequencies to choose by: the fixed budget.
    const budget = counted && query.mode === 'any' ? matchBudget(stats.n, r.match_share) : undefined;
    const found = await this.retrieval.search(tx, mindId, { ...query, lexemes, stats, budget }, query.filter, r.candidates, {
      bm25: { k1: r.bm25_k1, b: r.bm25_b },
      scan,
      minVectorSimilarity: r.min_vector_similarity,
      reach: NEIGHBOUR_REACH,
      retention: { config, now },
      associations: config.associations.expand && options.associations !== false ? { from: config.associations.expand_from, per: config.associations.per_relation } : undefined,
    });
    // Document frequencies change slowly: keep them until the size is counted again rather than
    // count them per query.
    if (counted && query.mode !== 'vector' && stats.df.size <= STATS_CACHE_WORDS) mind.text = stats;
    const textById = new Map(found.text.map((h) => [h.id, h.bm25]));
    const vectorById = new Map(found.vector.map((h) => [h.id, h.distance]));
    const candidates: Candidate[] = found.candidates.map((row) => ({
      id: row.id,
      bm25: textById.get(row.id),
      distance: vectorById.get(row.id),
      temporal_context: row.temporal_context,
      temporal_position: row.temporal_position,
      tags: row.tags,
      retention: row.retention,
      importance: row.importance_score,
      priority: row.priority,
      forgotten: row.forgotten,
    }));
    // The newest fact wins: statements of the same thing take their places newest first, among the
    // first VARIANT_WINDOW hits whatever the limit, so that a newer statement ranked just past the
    // limit still takes its older one's place and a smaller limit gives the first hits of a larger
    // one (a peer's report, tried on Engram: limit=1 answered the outdated value).
    const ranked = rankHybrid(candidates, sought, config, Math.max(query.limit, VARIANT_WINDOW), found.links);
    const read = new Map((await this.memories.findByIds(tx, mindId, ranked.map((h) => h.id))).map((row) => [row.id, row]));
    // The row's own fields are what ordering statements reads (libs/memory `Stated`).
    const hits = ranked.flatMap((h) => (read.has(h.id) ? [{ ...(read.get(h.id) as MemoryRow), score: h.score, explain: h.explain }] : []));
    const chosen = newestFirstAmongVariants(hits).slice(0, query.limit);
    // The hits are accesses (docs/design.md §5): their rows as the access leaves them (written
    // behind, or in this transaction with ACCESS_FLUSH_MS=0: AccessRecorder).
    const rows = chosen.map((h) => read.get(h.id) as MemoryRow);
    const seen = new Map((options.access === false ? this.accesses.seen(tx.tenantId, rows, config) : await this.accesses.accessRows(tx, mindId, rows, now, config)).map((row) => [row.id, row]));
    return chosen.flatMap((h) => (seen.has(h.id) ? [{ row: seen.get(h.id) as MemoryRow, score: h.score, explain: h.explain }] : []));
  }

  private async mindState(tx: TenantTx, mindId: string): Promise<MindState> {
    const key = `${tx.tenantId}:${mindId}`;
    let state = this.minds.get(key);
    if (!state) {
      state = { size: await this.mindStats.mindSize(tx, mindId) };
      this.minds.set(key, state);
    }
    return state;
  }

  /**
   * The mind's statistics for the query's lexemes (libs/memory bm25): the cached ones, with each
   * lexeme not seen yet counted, all in one statement (up to DF_COUNT_CAP; beyond, estimated from its share of the
   * sample). A copy: the cache decides what it keeps.
   */
  private async textStats(tx: TenantTx, mindId: string, lexemes: readonly string[], mind: MindState): Promise<TextStats> {
    const known = mind.text;
    const stats: TextStats = known ? { ...known, df: new Map(known.df) } : { n: mind.size, avgdl: await this.mindStats.meanLength(tx, mindId), df: new Map() };
    const capped: string[] = [];
    const unseen = lexemes.filter((x) => !stats.df.has(x));
    for (const [l, df] of await this.mindStats.documentFrequencies(tx, mindId, unseen, DF_COUNT_CAP)) {
      withDocumentFrequency(stats, l, df);
      if (df >= DF_COUNT_CAP) capped.push(l);
    }
    if (capped.length > 0) {
      for (const [l, share] of await this.mindStats.sampleShares(tx, mindId, capped)) stats.df.set(l, estimatedDocumentFrequency(share, stats.n));
    }
    return stats;
  }
}

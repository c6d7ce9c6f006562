import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import {
  MemoriesRepository,
  RetrievalRepository,
  type MatchMode,
  type MemoryRow,
  type RetrievalFilter,
  type TenantTx,
  type TextStats,
  type VectorScan,
} from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { rankHybrid, type Candidate, type Explanation, type LifecycleConfig } from '@engram/memory';

/** One result of a hybrid search: the memory (with this access counted), its score and how it came about. */
export interface HybridHit {
  row: MemoryRow;
  score: number;
  explain: Explanation;
}

const NEIGHBOUR_REACH = 2;
/** How long a mind's size and full-text statistics are kept before they are counted again. */
const MIND_CACHE_MS = 60_000;
/** Document frequencies kept per mind (they travel with every query). */
const STATS_CACHE_WORDS = 1000;

/** What search knows of a mind between counts: its size and, once searched by text, its statistics. */
interface MindState {
  until: number;
  size: number;
  text?: TextStats;
}

/**
 * Hybrid retrieval (DESIGN §6): BM25 full text and nearest embeddings bring candidates, their
 * neighbours in time join them, and libs/memory `rankHybrid` fuses and weights them. Vectors are
 * scanned exactly in minds smaller than `retrieval.exact_scan_below` and through ivfflat (with
 * `retrieval.probes`, iterating into more lists until enough of the mind's rows pass) above it. Every hit returned is an access.
 * Runs inside the caller's transaction.
 */
@Injectable()
export class HybridSearch {
  private readonly minds = new Map<string, MindState>();

  constructor(
    private readonly retrieval: RetrievalRepository,
    private readonly memories: MemoriesRepository,
    private readonly embedder: RequestEmbedder,
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

  async search(
    tx: TenantTx,
    mindId: string,
    query: { q: string; mode: MatchMode; vector: number[] | null; filter: RetrievalFilter; limit: number },
    config: LifecycleConfig,
    options: { access?: boolean } = {},
  ): Promise<HybridHit[]> {
    const r = config.retrieval;
    const mind = await this.mindState(tx, mindId);
    const scan: VectorScan = !query.vector || mind.size < r.exact_scan_below ? { exact: true } : { exact: false, probes: r.probes };
    const found = await this.retrieval.search(tx, mindId, query, query.filter, r.candidates, { bm25: { k1: r.bm25_k1, b: r.bm25_b }, scan, size: mind.size, stats: mind.text });
    // Document frequencies change slowly: keep them until the size is counted again rather than
    // count them per query (`vector` counts none).
    if (query.mode !== 'vector' && found.stats.df.size <= STATS_CACHE_WORDS) mind.text = found.stats;
    const text = found.text;
    const vector = found.vector.filter((h) => 1 - h.distance >= r.min_vector_similarity);
    const textById = new Map(text.map((h) => [h.id, h.bm25]));
    const vectorById = new Map(vector.map((h) => [h.id, h.distance]));
    const now = this.clock.now();
    const rows = await this.retrieval.candidates(tx, mindId, [...text, ...vector], NEIGHBOUR_REACH, query.filter, { config, now });
    const candidates: Candidate[] = rows.map((row) => ({
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
    const ranked = rankHybrid(candidates, query.q, config, query.limit);
    // The hits are accesses (DESIGN §5): recording them returns their rows, in one statement.
    // (A caller that uses only some of them records those itself.)
    const ids = ranked.map((h) => h.id);
    const fullRows = options.access === false ? await this.memories.findByIds(tx, mindId, ids) : await this.memories.recordAccess(tx, mindId, ids, now, config);
    const full = new Map(fullRows.map((row) => [row.id, row]));
    return ranked.flatMap((h) => {
      const row = full.get(h.id);
      return row ? [{ row, score: h.score, explain: h.explain }] : [];
    });
  }

  private async mindState(tx: TenantTx, mindId: string): Promise<MindState> {
    const key = `${tx.tenantId}:${mindId}`;
    let state = this.minds.get(key);
    if (!state || state.until < Date.now()) {
      state = { until: Date.now() + MIND_CACHE_MS, size: await this.retrieval.mindSize(tx, mindId) };
      this.minds.set(key, state);
    }
    return state;
  }
}

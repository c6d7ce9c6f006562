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
const SIZE_CACHE_MS = 60_000;
const STATS_CACHE_MS = 60_000;
const STATS_CACHE_WORDS = 1000;

/**
 * Hybrid retrieval (DESIGN §6): BM25 full text and nearest embeddings bring candidates, their
 * neighbours in time join them, and libs/memory `rankHybrid` fuses and weights them. Vectors are
 * scanned exactly in minds smaller than `retrieval.exact_scan_below` and through ivfflat (with
 * `retrieval.probes`, iterating into more lists until enough of the mind's rows pass) above it. Every hit returned is an access.
 * Runs inside the caller's transaction.
 */
@Injectable()
export class HybridSearch {
  private readonly sizes = new Map<string, { until: number; size: number }>();
  private readonly textStats = new Map<string, { until: number; stats: TextStats }>();

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
    const scan = query.vector ? await this.scanFor(tx, mindId, config) : { exact: true as const };
    const key = `${tx.tenantId}:${mindId}`;
    const cached = this.textStats.get(key);
    const known = cached && cached.until > Date.now() ? cached.stats : undefined;
    const found = await this.retrieval.search(tx, mindId, query, query.filter, r.candidates, { bm25: { k1: r.bm25_k1, b: r.bm25_b }, scan, stats: known });
    // Document frequencies change slowly: keep them a minute rather than count them per query.
    // (A bounded number of words, since they travel with every query; `vector` counts none.)
    if (query.mode !== 'vector') {
      if (known && known.df.size < STATS_CACHE_WORDS) for (const [l, df] of found.stats.df) known.df.set(l, df);
      else if (!known) this.textStats.set(key, { until: Date.now() + STATS_CACHE_MS, stats: found.stats });
    }
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

  private async scanFor(tx: TenantTx, mindId: string, config: LifecycleConfig): Promise<VectorScan> {
    const key = `${tx.tenantId}:${mindId}`;
    let cached = this.sizes.get(key);
    if (!cached || cached.until < Date.now()) {
      cached = { until: Date.now() + SIZE_CACHE_MS, size: await this.retrieval.mindSize(tx, mindId) };
      this.sizes.set(key, cached);
    }
    if (cached.size < config.retrieval.exact_scan_below) return { exact: true };
    return { exact: false, probes: config.retrieval.probes };
  }
}

/**
 * The vector statements search runs (libs/db retrieval.repository vectorSql), run as the owner so
 * that the benchmarks can time them apart from HTTP and compare the index with the exact answer.
 */
import type { Client } from 'pg';
import { HashingEmbedder } from '@engram/embeddings';
import { vectorLiteral } from '@engram/db';
import { percentile } from './support';

/** Candidates the vector branch asks for (retrieval.candidates' default). */
export const CANDIDATES = 100;
export const K = 10;

/**
 * The mind's {@link CANDIDATES} nearest memories to `vector` (a pgvector literal): exact (every
 * memory of the mind compared) when `probes` is null, else through the vector index with the
 * iterative scan: ivfflat with `probes` lists, or (`method` hnsw, when the index is one) HNSW
 * with `ef_search` = `probes`. @returns the top {@link K} ids by distance and the statement's time in ms
 */
export async function nearest(
  db: Client,
  tenantId: string,
  mindId: string,
  vector: string,
  probes: number | null,
  method: 'ivfflat' | 'hnsw' = 'ivfflat',
  /** The service's partial HNSW index: only the mind's memories in it (`vector_indexed`). */
  indexedOnly = false,
): Promise<{ ids: string[]; distances: number[]; ms: number }> {
  const where = `tenant_id = $1 and mind_id = $2 and embedding is not null and (expires_at is null or expires_at > now())${probes !== null && indexedOnly ? ' and vector_indexed' : ''}`;
  await db.query('begin');
  try {
    await db.query(`select set_config('enable_seqscan', 'off', true)`);
    const text =
      probes === null
        ? `select * from (select id, (embedding <=> $3::halfvec)::float8 as d from memories where ${where} offset 0) s order by d, id desc limit ${CANDIDATES}`
        : `select id, (embedding <=> $3::halfvec)::float8 as d from memories where ${where} order by embedding <=> $3::halfvec limit ${CANDIDATES}`;
    if (probes !== null && method === 'hnsw') {
      await db.query(`select set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_sort', 'off', true)`, [String(probes)]);
    } else if (probes !== null) {
      await db.query(`select set_config('ivfflat.probes', $1, true), set_config('ivfflat.iterative_scan', 'relaxed_order', true), set_config('enable_sort', 'off', true)`, [String(probes)]);
    }
    const t0 = process.hrtime.bigint();
    const res = await db.query<{ id: string; d: number }>(text, [tenantId, mindId, vector]);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    // relaxed_order may return near-sorted rows; search sorts them too.
    const top = res.rows.sort((a, b) => a.d - b.d).slice(0, K);
    return { ids: top.map((r) => r.id), distances: top.map((r) => r.d), ms };
  } finally {
    await db.query('commit');
  }
}

/** Share of `found` (distances) no farther than the exact answer's last (`tenth`), out of `k`; ties count. */
export function tiedRecall(found: readonly number[], tenth: number, k: number): number {
  return found.filter((d) => d <= tenth + 1e-9).length / k;
}

export interface AnnRecall {
  /** `exact` when the mind is below `exact_scan_below` (search never uses the index there). */
  path: 'exact' | 'hnsw';
  ef_search: number;
  queries: number;
  /**
   * Mean share of the index's top 10 that is as near as the exact 10th, 0..1: ties count (a
   * corpus holds the same text many times, and any of equal vectors is as right as another).
   */
  recall_at_10: number;
  index_p50_ms: number;
  index_p95_ms: number;
  exact_p50_ms: number;
  exact_p95_ms: number;
}

/** recall@10 of the path search takes for this mind against the exact answer, over `queries` (texts, embedded locally). */
export async function annRecall(
  db: Client,
  o: { tenantId: string; mindId: string; queries: string[]; efSearch: number; exactBelow: number },
): Promise<AnnRecall> {
  const embedder = new HashingEmbedder();
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from memories where tenant_id = $1 and mind_id = $2', [o.tenantId, o.mindId]);
  const path = (rows[0]?.n ?? 0) < o.exactBelow ? 'exact' : 'hnsw';
  const recalls: number[] = [];
  const indexMs: number[] = [];
  const exactMs: number[] = [];
  for (const q of o.queries) {
    const v = vectorLiteral(embedder.embedOne(q));
    const exact = await nearest(db, o.tenantId, o.mindId, v, null);
    const found = path === 'exact' ? exact : await nearest(db, o.tenantId, o.mindId, v, o.efSearch, 'hnsw', true);
    const tenth = exact.distances[exact.distances.length - 1];
    if (tenth !== undefined) recalls.push(tiedRecall(found.distances, tenth, exact.distances.length));
    exactMs.push(exact.ms);
    indexMs.push(found.ms);
  }
  const round = (x: number) => +x.toFixed(2);
  return {
    path,
    ef_search: o.efSearch,
    queries: recalls.length,
    recall_at_10: +(recalls.reduce((a, b) => a + b, 0) / Math.max(1, recalls.length)).toFixed(3),
    index_p50_ms: round(percentile(indexMs, 50)),
    index_p95_ms: round(percentile(indexMs, 95)),
    exact_p50_ms: round(percentile(exactMs, 50)),
    exact_p95_ms: round(percentile(exactMs, 95)),
  };
}

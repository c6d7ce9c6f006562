import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { MemoryCategory, MemoryLayer, MemoryPriority, MemoryTier, MemoryType } from '@engram/memory';
import { vectorLiteral } from '../memory-rows';
import type { TenantTx } from '../tenant-db';
import { MEMORY_COLUMNS, type MemoryRow } from './memories.repository';

/** Filters of a hybrid search (DESIGN §6). Tags are already normalised. */
export interface RetrievalFilter {
  category?: MemoryCategory;
  tags?: string[];
  priority?: MemoryPriority;
  memoryType?: MemoryType;
  layer?: MemoryLayer;
  tier?: MemoryTier;
  /** occurred_at ≥ from */
  from?: Date;
  /** occurred_at < to */
  to?: Date;
  verified?: boolean;
  /** Leave out memories expired at this instant. */
  activeAt: Date;
  /** Web-search syntax every result must match (`mode=all`: the query's words are a constraint). */
  mustMatch?: string;
}

/** How full text matches the query: `any` word (ranked), or `all` in web-search syntax. */
export type MatchMode = 'any' | 'all';

export interface TextHit {
  id: string;
  bm25: number;
}

export interface VectorHit {
  id: string;
  distance: number;
}

/** How vectors are searched: exactly (small minds), or through ivfflat with this many probes. */
export type VectorScan = { exact: true } | { exact: false; probes: number; iterative: boolean };

function filterSql(f: RetrievalFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`(expires_at is null or expires_at > ${f.activeAt}::timestamptz)`];
  if (f.category) parts.push(sql`category = ${f.category}`);
  if (f.priority) parts.push(sql`priority = ${f.priority}`);
  if (f.tags && f.tags.length > 0) parts.push(sql`tags @> ${f.tags}::text[]`);
  if (f.memoryType) parts.push(sql`memory_type = ${f.memoryType}`);
  if (f.layer) parts.push(sql`layer = ${f.layer}`);
  if (f.tier) parts.push(sql`tier = ${f.tier}`);
  if (f.from) parts.push(sql`occurred_at >= ${f.from}::timestamptz`);
  if (f.to) parts.push(sql`occurred_at < ${f.to}::timestamptz`);
  if (f.verified !== undefined) parts.push(sql`verified = ${f.verified}`);
  if (f.mustMatch !== undefined) parts.push(sql`search_vector @@ websearch_to_tsquery('english', ${f.mustMatch})`);
  return sql.join(parts, sql` and `);
}

/** True when the filter narrows more than expiry (then an ivfflat scan iterates). */
export function narrows(f: RetrievalFilter): boolean {
  return Boolean(f.category || f.priority || f.tags?.length || f.memoryType || f.layer || f.tier || f.from || f.to || f.verified !== undefined);
}

/**
 * The SQL of hybrid retrieval: BM25 over the full-text index and nearest vectors, each returning
 * candidates for the fusion in libs/memory (`rankHybrid`), plus the neighbours in time of those
 * candidates.
 */
@Injectable()
export class RetrievalRepository {
  /** Memories of the mind (for choosing exact or indexed vector search). */
  async mindSize(tx: TenantTx, mindId: string): Promise<number> {
    const row = await sql<{ n: number }>`select count(*)::int as n from memories where tenant_id = ${tx.tenantId} and mind_id = ${mindId}`.execute(tx.trx);
    return row.rows[0]?.n ?? 0;
  }

  /**
   * BM25 (k1, b) of the query's stemmed words (Postgres `english` configuration) over content, key
   * words and tags, with inverse document frequencies counted in the mind. `any`: a memory matches
   * with any query word; `all`: it must match `websearch_to_tsquery` (every word, "phrases",
   * -exclusions, or). @returns the best `limit` matches.
   */
  async text(
    tx: TenantTx,
    mindId: string,
    q: string,
    mode: MatchMode,
    filter: RetrievalFilter,
    limit: number,
    bm25: { k1: number; b: number },
  ): Promise<TextHit[]> {
    const t = tx.tenantId;
    const match =
      mode === 'all'
        ? sql`websearch_to_tsquery('english', ${q})`
        : sql`(select coalesce(string_agg(quote_literal(l), ' | '), '')::tsquery from ql)`;
    const result = await sql<TextHit>`
      with ql as (select distinct l from unnest(tsvector_to_array(to_tsvector('english', ${q}))) as l),
      stats as (
        select count(*)::float8 as n, coalesce(avg(length(search_vector)), 1)::float8 as avgdl
        from memories where tenant_id = ${t} and mind_id = ${mindId}),
      idf as (
        select ql.l, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) as idf
        from ql cross join stats st
        cross join lateral (
          select count(*)::float8 as df from memories m
          where m.tenant_id = ${t} and m.mind_id = ${mindId} and m.search_vector @@ quote_literal(ql.l)::tsquery) d),
      matched as (
        select id, search_vector, length(search_vector)::float8 as dl
        from memories
        where tenant_id = ${t} and mind_id = ${mindId} and search_vector @@ ${match} and ${filterSql(filter)})
      select m.id,
             sum(i.idf * (u.tf * (${bm25.k1}::float8 + 1))
                 / (u.tf + ${bm25.k1}::float8 * (1 - ${bm25.b}::float8 + ${bm25.b}::float8 * m.dl / st.avgdl)))::float8 as bm25
      from matched m
      cross join lateral (
        select lexeme, coalesce(array_length(positions, 1), 1)::float8 as tf from unnest(m.search_vector)) u
      join idf i on i.l = u.lexeme
      cross join stats st
      group by m.id
      order by bm25 desc, m.id desc
      limit ${limit}`.execute(tx.trx);
    return result.rows;
  }

  /**
   * The memories nearest the query vector by cosine distance (pgvector `<=>`). Exact: every
   * memory of the mind is compared (best for small minds). Indexed: ivfflat with `probes` lists,
   * iterating (`ivfflat.iterative_scan`) when a filter may leave too few in the probed lists.
   */
  async vector(tx: TenantTx, mindId: string, query: readonly number[], filter: RetrievalFilter, limit: number, scan: VectorScan): Promise<VectorHit[]> {
    const v = vectorLiteral(query);
    const where = sql`tenant_id = ${tx.tenantId} and mind_id = ${mindId} and embedding is not null and ${filterSql(filter)}`;
    if (scan.exact) {
      const result = await sql<VectorHit>`
        with scope as materialized (select id, embedding from memories where ${where})
        select id, (embedding <=> ${v}::vector)::float8 as distance from scope
        order by distance, id desc limit ${limit}`.execute(tx.trx);
      return result.rows;
    }
    await sql`select set_config('ivfflat.probes', ${String(scan.probes)}, true)`.execute(tx.trx);
    if (scan.iterative) await sql`select set_config('ivfflat.iterative_scan', 'relaxed_order', true)`.execute(tx.trx);
    const result = await sql<VectorHit>`
      select id, (embedding <=> ${v}::vector)::float8 as distance from memories
      where ${where}
      order by embedding <=> ${v}::vector limit ${limit}`.execute(tx.trx);
    // relaxed_order may return near-sorted rows.
    return result.rows.sort((a, b) => a.distance - b.distance);
  }

  /**
   * The memories with these ids and their neighbours up to `reach` positions away in the same
   * temporal context (seed 000 temporal_context / temporal_position), that pass the filter.
   */
  async withNeighbours(tx: TenantTx, mindId: string, ids: readonly string[], reach: number, filter: RetrievalFilter): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const columns = sql.join(MEMORY_COLUMNS.map((c) => sql.ref(`m.${c}`)));
    const result = await sql<MemoryRow>`
      with seeds as (
        select id, temporal_context, temporal_position from memories
        where tenant_id = ${tx.tenantId} and mind_id = ${mindId} and id = any(${[...ids]}::uuid[])),
      wanted as (
        select id from seeds
        union
        select n.id from seeds s
        join memories n on n.tenant_id = ${tx.tenantId} and n.mind_id = ${mindId}
          and n.temporal_context = s.temporal_context
          and n.temporal_position between s.temporal_position - ${reach}::int and s.temporal_position + ${reach}::int
        where s.temporal_position is not null)
      select ${columns} from memories m
      where m.tenant_id = ${tx.tenantId} and m.id in (select id from wanted) and ${filterSql(filter)}`.execute(tx.trx);
    return result.rows;
  }
}

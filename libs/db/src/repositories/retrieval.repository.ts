import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { LifecycleConfig, MemoryCategory, MemoryLayer, MemoryPriority, MemoryTier, MemoryType } from '@engram/memory';
import { retentionNowSql } from '../lifecycle-sql';
import { vectorLiteral } from '../memory-rows';
import type { TenantTx } from '../tenant-db';


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

/** Where a hit sits in time, so its neighbours can be fetched without reading it again. */
export interface Placed {
  id: string;
  temporal_context: string | null;
  temporal_position: number | null;
}

export interface TextHit extends Placed {
  bm25: number;
}

export interface VectorHit extends Placed {
  distance: number;
}

/** What ranking needs of a candidate (the full row is read only for the hits returned). */
export interface CandidateRow {
  id: string;
  temporal_context: string | null;
  temporal_position: number | null;
  tags: string[];
  importance_score: number | null;
  priority: MemoryPriority;
  forgotten: boolean;
  /** Retention at the search's instant, 0..1; null when the memory has no lifecycle fields. */
  retention: number | null;
}

/** Full-text statistics of a mind as of a search: size, mean content length, document frequencies. */
export interface TextStats {
  n: number;
  avgdl: number;
  df: Map<string, number>;
}

/** How vectors are searched: exactly (small minds), or through ivfflat with this many probes. */
export type VectorScan = { exact: true } | { exact: false; probes: number };

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
   * Both branches of hybrid retrieval in one statement (one round trip):
   *
   * - full text: BM25 (k1, b) of the query's stemmed words (Postgres `english` configuration)
   *   over content, key words and tags, with inverse document frequencies counted in the mind
   *   and the content's length in characters as document length.
   *   `any`: a memory matches with any query word; `all`: it must match `websearch_to_tsquery`
   *   (every word, "phrases", -exclusions, or);
   * - vectors: the memories nearest the query vector by cosine distance (pgvector `<=>`). Exact:
   *   every memory of the mind compared (best for small minds). Indexed: ivfflat with `probes`
   *   lists, iterating (`ivfflat.iterative_scan`) into further lists until `limit` rows of the
   *   mind pass the filter: the index holds every tenant's vectors, so the mind itself narrows it.
   *
   * @returns the best `limit` of each branch.
   */
  async search(
    tx: TenantTx,
    mindId: string,
    query: { q: string; mode: MatchMode; vector: readonly number[] | null },
    filter: RetrievalFilter,
    limit: number,
    options: { bm25: { k1: number; b: number }; scan: VectorScan; stats?: TextStats },
  ): Promise<{ text: TextHit[]; vector: VectorHit[]; stats: TextStats }> {
    const known = options.stats;
    // Every part of this statement is built for an index (tenant and mind, GIN, temporal). On a
    // small table the planner still prefers scanning all of it, once per part: forbid that here.
    await sql`select set_config('enable_seqscan', 'off', true)`.execute(tx.trx);
    const branches = [
      sql`select 'text' as branch, t.id::text as id, t.temporal_context, t.temporal_position, t.score from (${this.textSql(tx, mindId, query.q, query.mode, filter, limit, options.bm25)}) t`,
      // What the text branch counted, for the caller to keep: document frequencies and the mind's size.
      sql`select 'df', l, null::text, null::int, df from text_df`,
      sql`select 'n', null::text, null::text, null::int, n from text_stats`,
      sql`select 'avgdl', null::text, null::text, null::int, avgdl from text_stats`,
    ];
    if (query.vector) {
      if (!options.scan.exact) {
        // Without enable_sort off the planner prefers reading the mind by its b-tree and sorting
        // every distance (an exact scan) whenever probes are many: measured in bench/ann.ts.
        // Every other part of the statement sorts whatever the plan, so the penalty moves only this one.
        await sql`select set_config('ivfflat.probes', ${String(options.scan.probes)}, true),
                         set_config('ivfflat.iterative_scan', 'relaxed_order', true),
                         set_config('enable_sort', 'off', true)`.execute(tx.trx);
      }
      branches.push(sql`select 'vector', v.id::text, v.temporal_context, v.temporal_position, v.score from (${this.vectorSql(tx, mindId, query.vector, filter, limit, options.scan.exact)}) v`);
    }
    const result = await sql<Placed & { branch: 'text' | 'vector' | 'df' | 'n' | 'avgdl'; score: number }>`
      ${this.textStatsSql(tx, mindId, query.q, known)}
      ${sql.join(branches, sql` union all `)}`.execute(tx.trx);
    const text: TextHit[] = [];
    const vector: VectorHit[] = [];
    const stats: TextStats = { n: 0, avgdl: 1, df: new Map() };
    for (const { branch, score, ...placed } of result.rows) {
      if (branch === 'text') text.push({ ...placed, bm25: score });
      else if (branch === 'vector') vector.push({ ...placed, distance: score });
      else if (branch === 'df') stats.df.set(placed.id, score);
      else if (branch === 'n') stats.n = score;
      else stats.avgdl = score;
    }
    text.sort((a, b) => b.bm25 - a.bm25);
    // relaxed_order may return near-sorted rows.
    vector.sort((a, b) => a.distance - b.distance);
    return { text, vector, stats };
  }

  /**
   * The CTEs of full-text statistics: the query's lexemes, the mind's size and mean content length,
   * and each lexeme's document frequency, taken from `known` where the caller has them (a cache)
   * and counted in the mind otherwise.
   */
  private textStatsSql(tx: TenantTx, mindId: string, q: string, known: TextStats | undefined) {
    const t = tx.tenantId;
    const cached = JSON.stringify(known ? Object.fromEntries(known.df) : {});
    const n = known ? sql`${known.n}::float8` : sql`(select count(*)::float8 from memories where tenant_id = ${t} and mind_id = ${mindId})`;
    const avgdl = known
      ? sql`${known.avgdl}::float8`
      : sql`(select coalesce(avg(length(content)), 1)::float8 from memories where tenant_id = ${t} and mind_id = ${mindId})`;
    return sql`
      with ql as materialized (select distinct l from unnest(tsvector_to_array(to_tsvector('english', ${q}))) as l),
      -- Materialised: computed once per query, not once per matching row.
      text_stats as materialized (select ${n} as n, ${avgdl} as avgdl),
      text_df as materialized (
        select ql.l,
               coalesce((${cached}::jsonb ->> ql.l)::float8,
                        (select count(*)::float8 from memories m
                         where m.tenant_id = ${t} and m.mind_id = ${mindId} and m.search_vector @@ quote_literal(ql.l)::tsquery)) as df
        from ql),
      idf as materialized (
        select d.l, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) as idf from text_df d cross join text_stats st)`;
  }

  private textSql(tx: TenantTx, mindId: string, q: string, mode: MatchMode, filter: RetrievalFilter, limit: number, bm25: { k1: number; b: number }) {
    const t = tx.tenantId;
    const match =
      mode === 'all'
        ? sql`websearch_to_tsquery('english', ${q})`
        : sql`(select coalesce(string_agg(quote_literal(l), ' | '), '')::tsquery from ql)`;
    return sql`
      with matched as (
        -- Document length in characters of content: BM25's length normalisation then also weighs
        -- what a result costs in an LLM's context.
        select id, temporal_context, temporal_position, search_vector, length(content)::float8 as dl
        from memories
        where tenant_id = ${t} and mind_id = ${mindId} and search_vector @@ ${match} and ${filterSql(filter)})
      select m.id, m.temporal_context, m.temporal_position,
             sum(i.idf * (u.tf * (${bm25.k1}::float8 + 1))
                 / (u.tf + ${bm25.k1}::float8 * (1 - ${bm25.b}::float8 + ${bm25.b}::float8 * m.dl / st.avgdl)))::float8 as score
      from matched m
      cross join lateral (
        select lexeme, coalesce(array_length(positions, 1), 1)::float8 as tf from unnest(m.search_vector)) u
      join idf i on i.l = u.lexeme
      cross join text_stats st
      group by m.id, m.temporal_context, m.temporal_position
      order by score desc, m.id desc
      limit ${limit}`;
  }

  private vectorSql(tx: TenantTx, mindId: string, query: readonly number[], filter: RetrievalFilter, limit: number, exact: boolean) {
    const v = vectorLiteral(query);
    const where = sql`tenant_id = ${tx.tenantId} and mind_id = ${mindId} and embedding is not null and ${filterSql(filter)}`;
    if (exact) {
      // OFFSET 0 keeps the ordering out of the subquery, so the planner cannot answer it with the
      // ivfflat index (an ORDER BY the distance alone can be, cast or not): every memory of the
      // mind is compared.
      return sql`
        select * from (
          select id, temporal_context, temporal_position, (embedding <=> ${v}::vector)::float8 as score from memories
          where ${where} offset 0) exact
        order by score, id desc limit ${limit}`;
    }
    return sql`
      select id, temporal_context, temporal_position, (embedding <=> ${v}::vector)::float8 as score from memories
      where ${where}
      order by embedding <=> ${v}::vector limit ${limit}`;
  }

  /**
   * What ranking needs of the hits and of their neighbours up to `reach` positions away in the
   * same temporal context (seed 000 temporal_context / temporal_position), that pass the filter:
   * one query, by key (ids, and exact (context, position) pairs), so its plan does not depend on
   * table statistics.
   */
  async candidates(
    tx: TenantTx,
    mindId: string,
    hits: readonly Placed[],
    reach: number,
    filter: RetrievalFilter,
    retention: { config: LifecycleConfig; now: Date },
  ): Promise<CandidateRow[]> {
    if (hits.length === 0) return [];
    const ids = [...new Set(hits.map((h) => h.id))];
    const seen = new Set(hits.map((h) => `${h.temporal_context}\u0000${h.temporal_position}`));
    const contexts: string[] = [];
    const positions: number[] = [];
    for (const h of hits) {
      if (h.temporal_context === null || h.temporal_position === null) continue;
      for (let d = -reach; d <= reach; d++) {
        // A neighbour past the ends of `integer` cannot exist (and would fail the int[] cast).
        if (!Number.isSafeInteger(h.temporal_position + d) || Math.abs(h.temporal_position + d) > 2147483647) continue;
        const key = `${h.temporal_context}\u0000${h.temporal_position + d}`;
        if (seen.has(key)) continue;
        seen.add(key);
        contexts.push(h.temporal_context);
        positions.push(h.temporal_position + d);
      }
    }
    // Computed here, not parsed from timestamps in Node: a few hundred rows a search.
    const columns = sql`m.id, m.temporal_context, m.temporal_position, m.tags, m.importance_score, m.priority,
      (m.forgotten_at is not null) as forgotten,
      case when m.current_retention is null then null else ${retentionNowSql(retention.config, retention.now)} end as retention`;
    const result = await sql<CandidateRow>`
      select ${columns} from memories m
      where m.tenant_id = ${tx.tenantId} and m.mind_id = ${mindId} and m.id = any(${ids}::uuid[]) and ${filterSql(filter)}
      union all
      select ${columns} from unnest(${contexts}::text[], ${positions}::int[]) as u(context, position)
      join memories m on m.tenant_id = ${tx.tenantId} and m.mind_id = ${mindId}
        and m.temporal_context = u.context and m.temporal_position = u.position
      where ${filterSql(filter)} and m.id <> all(${ids}::uuid[])`.execute(tx.trx);
    return result.rows;
  }
}

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

/**
 * How the query finds memories: full text with `any` word (ranked) or `all` in web-search syntax,
 * each fused with the nearest vectors; or `vector`: by meaning only (no full-text branch).
 */
export type MatchMode = 'any' | 'all' | 'vector';

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
  /** Memories in the mind. */
  n: number;
  /** Mean content length in characters (of a sample of {@link STATS_SAMPLE} memories in larger minds). */
  avgdl: number;
  /** Memories holding each lexeme: exact up to {@link DF_COUNT_CAP}, estimated from the sample above it. */
  df: Map<string, number>;
}

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

/** How vectors are searched: exactly (small minds), or through ivfflat with this many probes. */
export type VectorScan = { exact: true } | { exact: false; probes: number };

/** A tsquery of one lexeme, quoted (a lexeme may hold any character). */
function lexemeQuery(l: string): string {
  return `'${l.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`;
}

/**
 * The tsquery (as text) `any` mode matches with: the query's rarest lexemes, in rising document
 * frequency while they add up to at most MATCH_BUDGET memories (at least the rarest), or-ed;
 * null when the query has no lexeme.
 */
export function matchQuery(lexemes: readonly string[], df: ReadonlyMap<string, number>): string | null {
  if (lexemes.length === 0) return null;
  const byRarity = [...lexemes].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || a.localeCompare(b));
  const chosen: string[] = [];
  let total = 0;
  for (const l of byRarity) {
    const n = df.get(l) ?? 0;
    if (chosen.length > 0 && total + n > MATCH_BUDGET) break;
    chosen.push(l);
    total += n;
  }
  return chosen.map(lexemeQuery).join(' | ');
}

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
    /** `size`: the mind's memories (a recent count); `stats`: full-text statistics kept from an earlier search. */
    options: { bm25: { k1: number; b: number }; scan: VectorScan; size: number; stats?: TextStats },
  ): Promise<{ text: TextHit[]; vector: VectorHit[]; stats: TextStats }> {
    const empty: TextStats = { n: 0, avgdl: 1, df: new Map() };
    if (query.mode === 'vector') return { text: [], vector: query.vector ? await this.vectorOnly(tx, mindId, query.vector, filter, limit, options.scan) : [], stats: options.stats ?? empty };
    // Every part of this statement is built for an index (tenant and mind, GIN, temporal). On a
    // small table the planner still prefers scanning all of it, once per part: forbid that here.
    await sql`select set_config('enable_seqscan', 'off', true)`.execute(tx.trx);
    const { lexemes, stats } = await this.textStats(tx, mindId, query.q, options.size, options.stats);
    const branches: RawBuilder<unknown>[] = [];
    const any = query.mode === 'any' ? matchQuery(lexemes, stats.df) : null;
    // `all`: every result must match the web-search query (the filter says so too).
    const match = query.mode === 'all' ? sql`websearch_to_tsquery('english', ${query.q})` : any === null ? null : sql`${any}::tsquery`;
    if (match) {
      branches.push(sql`select 'text' as branch, t.id::text as id, t.temporal_context, t.temporal_position, t.score from (${this.textSql(tx, mindId, match, lexemes, stats, filter, limit, options.bm25)}) t`);
    }
    if (query.vector) {
      await this.configureScan(tx, options.scan);
      branches.push(sql`select 'vector', v.id::text, v.temporal_context, v.temporal_position, v.score from (${this.vectorSql(tx, mindId, query.vector, filter, limit, options.scan.exact)}) v`);
    }
    const text: TextHit[] = [];
    const vector: VectorHit[] = [];
    if (branches.length === 0) return { text, vector, stats };
    const result = await sql<Placed & { branch: 'text' | 'vector'; score: number }>`${sql.join(branches, sql` union all `)}`.execute(tx.trx);
    for (const { branch, score, ...placed } of result.rows) {
      if (branch === 'text') text.push({ ...placed, bm25: score });
      else vector.push({ ...placed, distance: score });
    }
    text.sort((a, b) => b.bm25 - a.bm25);
    // relaxed_order may return near-sorted rows.
    vector.sort((a, b) => a.distance - b.distance);
    return { text, vector, stats };
  }

  /**
   * The query's stemmed lexemes (Postgres `english`) and the mind's full-text statistics, taken
   * from `known` where the caller has them (a cache) and counted otherwise: the mind's size, the
   * mean content length, and each new lexeme's document frequency (one statement per lexeme,
   * so that the planner sees the lexeme and picks the GIN index for rare ones).
   */
  private async textStats(tx: TenantTx, mindId: string, q: string, size: number, known: TextStats | undefined): Promise<{ lexemes: string[]; stats: TextStats }> {
    const t = tx.tenantId;
    const { rows } = await sql<{ lexemes: string[] }>`select array(select distinct l from unnest(tsvector_to_array(to_tsvector('english', ${q}))) as l order by l) as lexemes`.execute(tx.trx);
    const lexemes = rows[0]?.lexemes ?? [];
    // A copy: the caller's cache decides what it keeps.
    const stats: TextStats = known ? { ...known, df: new Map(known.df) } : { n: size, avgdl: 1, df: new Map() };
    const sample = sql`(select content, search_vector from memories where tenant_id = ${t} and mind_id = ${mindId} order by id desc limit ${STATS_SAMPLE})`;
    if (!known) {
      const { rows: mind } = await sql<{ avgdl: number }>`select coalesce(avg(length(content)), 1)::float8 as avgdl from ${sample} s`.execute(tx.trx);
      stats.avgdl = mind[0]?.avgdl ?? 1;
    }
    const capped: string[] = [];
    for (const l of lexemes.filter((x) => !stats.df.has(x))) {
      const { rows: counted } = await sql<{ df: number }>`
        select count(*)::int as df from engram_text_match(${t}, ${mindId}, ${lexemeQuery(l)}::tsquery, ${DF_COUNT_CAP})`.execute(tx.trx);
      const df = counted[0]?.df ?? 0;
      stats.df.set(l, df);
      // The mind's size may come from a cache older than this count: it holds at least these
      // (so that BM25's idf stays positive).
      stats.n = Math.max(stats.n, df);
      if (df >= DF_COUNT_CAP) capped.push(l);
    }
    if (capped.length > 0) {
      const { rows: shares } = await sql<{ l: string; share: number }>`
        select c.l, (select count(*) filter (where s.search_vector @@ c.q)::float8 / greatest(count(*), 1) from ${sample} s) as share
        from unnest(${capped}::text[], ${capped.map(lexemeQuery)}::tsquery[]) as c(l, q)`.execute(tx.trx);
      for (const { l, share } of shares) stats.df.set(l, Math.max(DF_COUNT_CAP, Math.round(share * stats.n)));
    }
    return { lexemes, stats };
  }
  /** The nearest memories alone (`mode=vector`), sorted by distance. */
  private async vectorOnly(tx: TenantTx, mindId: string, vector: readonly number[], filter: RetrievalFilter, limit: number, scan: VectorScan): Promise<VectorHit[]> {
    await sql`select set_config('enable_seqscan', 'off', true)`.execute(tx.trx);
    await this.configureScan(tx, scan);
    const { rows } = await sql<Placed & { score: number }>`${this.vectorSql(tx, mindId, vector, filter, limit, scan.exact)}`.execute(tx.trx);
    return rows.map(({ score, ...placed }) => ({ ...placed, distance: score })).sort((a, b) => a.distance - b.distance);
  }

  private async configureScan(tx: TenantTx, scan: VectorScan): Promise<void> {
    if (scan.exact) return;
    // Without enable_sort off the planner prefers reading the mind by its b-tree and sorting
    // every distance (an exact scan) whenever probes are many: measured in bench/ann.ts.
    // Every other part of the statement sorts whatever the plan, so the penalty moves only this one.
    await sql`select set_config('ivfflat.probes', ${String(scan.probes)}, true),
                     set_config('ivfflat.iterative_scan', 'relaxed_order', true),
                     set_config('enable_sort', 'off', true)`.execute(tx.trx);
  }

  /**
   * BM25 (k1, b) of the matched memories over the query's lexemes, with inverse document
   * frequencies from `stats` (counted in the mind) and the content's length in characters as
   * document length (so length normalisation also weighs what a result costs in an LLM's context).
   * At most {@link MATCH_BUDGET} memories are scored.
   */
  private textSql(tx: TenantTx, mindId: string, match: RawBuilder<unknown>, lexemes: string[], stats: TextStats, filter: RetrievalFilter, limit: number, bm25: { k1: number; b: number }) {
    const t = tx.tenantId;
    // Positive: textStats keeps n at least every df it counts or estimates.
    const idf = lexemes.map((l) => {
      const df = stats.df.get(l) ?? 0;
      return Math.log(1 + (stats.n - df + 0.5) / (df + 0.5));
    });
    return sql`
      with idf as (select * from unnest(${lexemes}::text[], ${idf}::float8[]) as i(l, idf)),
      -- The match goes through engram_text_match (the GIN index; see its migration); the filter
      -- applies to what it found, so a narrow filter keeps fewer than the budget.
      matched as (
        select m.id, m.temporal_context, m.temporal_position, m.search_vector, length(m.content)::float8 as dl
        from memories m
        -- An array, so that the rows are fetched by key (a join would read the whole tenant to hash it).
        where m.tenant_id = ${t} and m.id = any(array(select x.id from engram_text_match(${t}, ${mindId}, ${match}, ${MATCH_BUDGET}) x))
          and m.mind_id = ${mindId} and ${filterSql(filter)})
      select m.id, m.temporal_context, m.temporal_position,
             sum(i.idf * (u.tf * (${bm25.k1}::float8 + 1))
                 / (u.tf + ${bm25.k1}::float8 * (1 - ${bm25.b}::float8 + ${bm25.b}::float8 * m.dl / ${stats.avgdl}::float8)))::float8 as score
      from matched m
      cross join lateral (
        select lexeme, coalesce(array_length(positions, 1), 1)::float8 as tf from unnest(m.search_vector)) u
      join idf i on i.l = u.lexeme
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

import { Inject, Injectable, Optional } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import { MATCH_BUDGET, matchLexemes, type AssociationRelation, type LifecycleConfig, type TextStats } from '@engram/memory';
import { retentionNowSql } from '../lifecycle-sql';
import { memoryFilterSql, narrowsMatch, websearchSql, type MemoryFilter } from '../memory-filter';
import { PREPARED } from '../prepared';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import { setLocal, type TenantTx } from '../tenant-db';
import { linksBothWays } from './associations.repository';
import { VECTOR_ARITHMETIC } from '../db-handle';
import { lexemeQuery, textSql, vectorSql, type VectorArithmetic } from './retrieval-sql';
import type { CandidateRow, FollowedLink, Placed, RetrievalQuery, TextHit, VectorHit, VectorScan } from './retrieval-types';

/**
 * What `any` mode matches with: libs/memory `matchLexemes` (chosen once), or-ed into a tsquery
 * (as text), and how many matched memories it scores: the budget, or the chosen lexemes' memories
 * if more (the rarest lexeme is chosen whatever its frequency, and all of its memories are
 * scored, not an arbitrary part), at most MATCH_BUDGET. Null without lexemes.
 */
export function anyMatch(lexemes: readonly string[], df: ReadonlyMap<string, number>, budget = MATCH_BUDGET): { query: string; cap: number } | null {
  const chosen = matchLexemes(lexemes, df, budget);
  if (chosen.length === 0) return null;
  const memories = chosen.reduce((sum, l) => sum + (df.get(l) ?? 0), 0);
  return { query: chosen.map(lexemeQuery).join(' | '), cap: Math.min(MATCH_BUDGET, Math.max(budget, memories)) };
}

const M = SAMPLE.uuid;
const STATS: TextStats = { n: 100, avgdl: 40, df: new Map([['budget', 3]]) };
const BM25 = { k1: 1.2, b: 0.75 };
const V = [0.5, 0.25];
const F: MemoryFilter = { activeAt: SAMPLE.date, category: 'fact' };
const AROUND = { minVectorSimilarity: 0.1, reach: 2, retention: { config: SAMPLE.config, now: SAMPLE.date }, associations: { from: 10, per: 5 } };

/**
 * The SQL of hybrid retrieval (docs/design.md §6): the query's lexemes, BM25 over the full-text
 * index and the nearest vectors in one statement, and what ranking needs of the candidates and
 * their neighbours in time. The mind's statistics are MindStatsRepository's. The maths is
 * libs/memory's (`bm25`, `rankHybrid`).
 */
@Injectable()
export class RetrievalRepository {
  /** @param arithmetic how exact vector scans compute distances on this database (retrieval-sql `nearestSql`); absent: PostgreSQL's */
  constructor(@Optional() @Inject(VECTOR_ARITHMETIC) private readonly arithmetic: VectorArithmetic = 'halfvec') {}

  /**
   * Starts a search, in one statement: forbids sequential scans for the rest of the transaction,
   * and answers the query's
   * distinct stemmed lexemes (PostgreSQL's `english` configuration; accents folded and a run of
   * Han or kana read as its bigrams and its Han characters, as the search document reads it:
   * `engram_search_text` (numbers' groups joined, accents folded), `engram_cjk_document`; "我的猫" finds "我有一只猫" by 猫, its rare
   * lexeme, while a pair that matches ranks higher), sorted; none for `q` null (a
   * vector-only search). Every statement of a search is built for an index (tenant and mind, GIN,
   * temporal); on a small table the planner still prefers scanning all of it, once per part.
   * A search's statements keep custom plans (libs/db prepared.ts). Generic plans were tried
   * (bench/RESULTS.md, "Peers"): 0.1 ms of planning instead of 1.7-1.9 ms on a LoCoMo-size mind,
   * but at 100 000 memories in one mind hybrid search went from 195 to 2,160 ms p50 (bench:scale),
   * and Citus refuses them ("could not create distributed plan").
   * One statement rather than two: a search's cost follows its round trips.
   */
  @GenerateSql({ name: 'text', params: ['who approved the budget?'] }, { name: 'vector only', params: [null] })
  async startSearch(tx: TenantTx, q: string | null): Promise<string[]> {
    const { rows } = await sql<{ lexemes: string[] }>`
      select set_config('enable_seqscan', 'off', true) as seqscan,
             array(select distinct l from unnest(tsvector_to_array(to_tsvector('english', engram_cjk_document(engram_search_text(coalesce(${q}::text, '')))))) as l order by l) as lexemes${PREPARED}`.execute(tx.trx);
    return rows[0]?.lexemes ?? [];
  }

  /**
   * Hybrid retrieval's candidates in one statement (one round trip):
   *
   * - full text: BM25 (k1, b) of the query's lexemes over content, key words and tags, with the
   *   idf of `query.stats` and the content's length in characters as document length (so length
   *   normalisation also weighs what a result costs in an LLM's context). `any`: a memory
   *   matches with any of the lexemes libs/memory `matchLexemes` chooses; `all`: it must match
   *   `websearch_to_tsquery` (every word, "phrases", -exclusions, or);
   * - vectors: the memories nearest the query vector by cosine distance (pgvector `<=>`), kept
   *   when their similarity 1 − distance is at least `minVectorSimilarity`. Exact: every memory
   *   of the mind compared (best for small minds). Indexed: HNSW with `efSearch`, iterating
   *   (`hnsw.iterative_scan`) until `limit` rows of the mind pass the filter (the index holds
   *   every large mind's vectors, so the mind itself narrows it), beside an exact scan of the
   *   mind's memories not in the index yet (retrieval-sql `nearestSql`);
   * - what ranking needs of those hits and of their neighbours up to `reach` positions away in
   *   the same temporal context (seed 000 temporal_context / temporal_position) that pass the
   *   filter, fetched by key (hits by primary key, neighbours by exact (context, position)), so
   *   the plan does not depend on table statistics;
   * - with `associations`: the links of each branch's best `from` hits, both directions, the
   *   strongest `per` of each hit (memory_associations; docs/design.md §6.8), and the candidate
   *   row of each memory they bring that passes the filter (one hop: a brought memory's own links
   *   are not followed).
   *
   * @returns the best `limit` of each branch (text by score, vectors by distance), a candidate
   *   row for each hit, neighbour and linked memory, once each, and the links followed
   */
  @GenerateSql(
    { name: 'any with a vector, exact', params: [M, { q: 'budget', mode: 'any', vector: V, lexemes: ['budget'], stats: STATS }, F, SAMPLE.limit, { bm25: BM25, scan: { exact: true }, ...AROUND }] },
    { name: 'all, indexed vectors', params: [M, { q: 'budget -draft', mode: 'all', vector: V, lexemes: ['budget', 'draft'], stats: STATS }, { ...F, mustMatch: 'budget -draft' }, SAMPLE.limit, { bm25: BM25, scan: { exact: false, efSearch: 100 }, ...AROUND }] },
    { name: 'vector only', params: [M, { q: 'budget', mode: 'vector', vector: V, lexemes: [], stats: STATS }, F, SAMPLE.limit, { bm25: BM25, scan: { exact: false, efSearch: 100 }, ...AROUND }] },
  )
  async search(
    tx: TenantTx,
    mindId: string,
    query: RetrievalQuery,
    filter: MemoryFilter,
    limit: number,
    options: {
      bm25: { k1: number; b: number };
      scan: VectorScan;
      minVectorSimilarity: number;
      reach: number;
      retention: { config: LifecycleConfig; now: Date };
      /** Follow the links of each branch's best `from` hits, at most `per` a hit; absent: no expansion. */
      associations?: { from: number; per: number };
    },
  ): Promise<{ text: TextHit[]; vector: VectorHit[]; candidates: CandidateRow[]; links: FollowedLink[] }> {
    const branches: RawBuilder<unknown>[] = [];
    if (query.mode !== 'vector') {
      // A filter narrows the memories scored, and the mind's frequencies say nothing of what it
      // keeps: "meeting budget" with category=skill matched on "budget" alone (rarer in the mind)
      // and missed the one skill holding "meeting" (helper 42). Then every word is matched.
      const any = query.mode === 'any' ? anyMatch(query.lexemes, query.stats.df, narrowsMatch(filter) ? Number.POSITIVE_INFINITY : query.budget) : null;
      // `all`: every result must match the web-search query (the filter says so too).
      const match = query.mode === 'all' ? { sql: websearchSql(query.q), cap: MATCH_BUDGET } : any === null ? null : { sql: sql`${any.query}::tsquery`, cap: any.cap };
      if (match) branches.push(sql`select 'text' as branch, t.id, t.temporal_context, t.temporal_position, t.score from (${textSql(tx, mindId, match, query, filter, limit, options.bm25)}) t`);
    }
    if (query.vector) {
      await this.configureScan(tx, options.scan);
      branches.push(sql`select 'vector' as branch, v.id, v.temporal_context, v.temporal_position, v.score from (${vectorSql(tx, mindId, query.vector, filter, limit, options.scan.exact, this.arithmetic)}) v
        where 1 - v.score >= ${options.minVectorSimilarity}::float8`);
    }
    const text: TextHit[] = [];
    const vector: VectorHit[] = [];
    const candidates: CandidateRow[] = [];
    const links: FollowedLink[] = [];
    if (branches.length === 0) return { text, vector, candidates, links };
    const t = tx.tenantId;
    // Computed here, not parsed from timestamps in Node: a few hundred rows a search.
    const columns = sql`m.id::text as id, m.temporal_context, m.temporal_position, m.tags, m.importance_score, m.priority,
      (m.forgotten_at is not null) as forgotten,
      case when m.current_retention is null then null else ${retentionNowSql(options.retention.config, options.retention.now)} end as retention`;
    const expand = options.associations;
    // Each branch's best hits (text: highest score; vectors: smallest distance), their links both
    // ways, the strongest of each hit: two index look-ups a hit (primary key, target index).
    const linked = expand
      ? sql`,
      tops as (
        select distinct id from (
          select h.id, row_number() over (partition by h.branch order by case when h.branch = 'text' then -h.score else h.score end, h.id desc) as r from hits h) x
        where r <= ${expand.from}),
      links as (
        select s.id as source, l.other as target, l.relation, l.weight from tops s
        cross join lateral (
          select * from (${linksBothWays(t, sql`s.id`)}) z
          order by z.weight desc, z.other desc limit ${expand.per}) l)`
      : sql``;
    const linkedRows = expand
      ? sql`
      union all
      select 'link', l.weight, l.source::text, l.relation, ${columns} from links l
      join memories m on m.tenant_id = ${t} and m.id = l.target
      where m.mind_id = ${mindId} and ${memoryFilterSql(filter)}`
      : sql``;
    const result = await sql<CandidateRow & { branch: 'text' | 'vector' | 'link' | null; score: number | null; source: string | null; relation: AssociationRelation | null }>`
      with hits as (${sql.join(branches, sql` union all `)})${linked},
      -- The hits' neighbours' places, the hits' own places left out (a neighbour past the ends of
      -- integer cannot exist).
      slots as (
        select h.temporal_context as context, (h.temporal_position::bigint + d)::int as position
        from hits h cross join generate_series(${-options.reach}::int, ${options.reach}::int) d
        where h.temporal_context is not null and d <> 0 and h.temporal_position::bigint + d between -2147483648 and 2147483647
        except
        select h.temporal_context, h.temporal_position from hits h where h.temporal_context is not null)
      select h.branch, h.score, null::text as source, null::text as relation, ${columns} from hits h
      join memories m on m.tenant_id = ${t} and m.id = h.id
      union all
      select null, null, null, null, ${columns} from slots s
      join memories m on m.tenant_id = ${t} and m.mind_id = ${mindId} and m.temporal_context = s.context and m.temporal_position = s.position
      where ${memoryFilterSql(filter)} and m.id not in (select h.id from hits h)${linkedRows}${PREPARED}`.execute(tx.trx);
    const seen = new Set<string>();
    for (const { branch, score, source, relation, ...row } of result.rows) {
      if (branch === 'text') text.push({ id: row.id, temporal_context: row.temporal_context, temporal_position: row.temporal_position, bm25: score as number });
      else if (branch === 'vector') vector.push({ id: row.id, temporal_context: row.temporal_context, temporal_position: row.temporal_position, distance: score as number });
      else if (branch === 'link') links.push({ source: source as string, target: row.id, relation: relation as AssociationRelation, weight: score as number });
      if (!seen.has(row.id)) {
        seen.add(row.id);
        candidates.push(row);
      }
    }
    // Each branch's own order (ties: the newer id first), whatever order the join returned.
    const newerFirst = (x: Placed, y: Placed) => (x.id < y.id ? 1 : x.id > y.id ? -1 : 0);
    text.sort((a, b) => b.bm25 - a.bm25 || newerFirst(a, b));
    vector.sort((a, b) => a.distance - b.distance || newerFirst(a, b));
    return { text, vector, candidates, links };
  }

  @GenerateSql({ name: 'exact', params: [{ exact: true }] }, { name: 'hnsw', params: [{ exact: false, efSearch: 100 }] })
  async configureScan(tx: TenantTx, scan: VectorScan): Promise<void> {
    if (scan.exact) return;
    // relaxed_order: HNSW goes on past ef_search until enough rows pass the mind's filter (pgvector
    // 0.8 iterative scans); the statement sorts what it gets. Without enable_sort off the planner
    // may prefer reading the mind by its b-tree and sorting every distance (an exact scan):
    // measured in bench/ann.ts. Every other part of the statement sorts whatever the plan, so the
    // penalty moves only this one.
    await setLocal(tx, { 'hnsw.ef_search': scan.efSearch, 'hnsw.iterative_scan': 'relaxed_order', enable_sort: 'off' });
  }
}

import { sql, type RawBuilder } from 'kysely';
import { bm25Idf, hangulPrefix } from '@engram/memory';
import { memoryFilterSql, narrowsMatch, type MemoryFilter } from '../memory-filter';
import type { DatabaseMode } from '../database';
import type { TenantTx } from '../tenant-db';
import { vectorLiteral } from '../vectors';
import type { RetrievalQuery } from './retrieval-types';

// The two branches of hybrid search as SQL (RetrievalRepository.search runs them in one statement).

/** A tsquery of one lexeme, quoted (a lexeme may hold any character). */
export function lexemeQuery(l: string): string {
  // A Korean word matches its forms with any particle (libs/memory hangulPrefix).
  const prefix = hangulPrefix(l);
  if (prefix !== null) return `'${prefix}':*`;
  return `'${l.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`;
}

/**
 * BM25 of the matched memories over the query's lexemes (libs/memory `bm25Term`, summed in SQL),
 * with libs/memory `bm25Idf` from the statistics. At most `match.cap` matched memories are scored.
 */
export function textSql(tx: TenantTx, mindId: string, match: { sql: RawBuilder<unknown>; cap: number }, query: RetrievalQuery, filter: MemoryFilter, limit: number, bm25: { k1: number; b: number }) {
  const t = tx.tenantId;
  const lexemes = [...query.lexemes];
  const idf = lexemes.map((l) => bm25Idf(query.stats.n, query.stats.df.get(l) ?? 0));
  // A Korean query word counts every form of it in the memory (서울에, 서울은: libs/memory
  // hangulPrefix); other lexemes are matched whole, by a hash join.
  const prefixes = lexemes.map((l) => hangulPrefix(l));
  const byPrefix = prefixes.some((p) => p !== null);
  const join = byPrefix ? sql`(i.prefix is null and i.l = u.lexeme) or (i.prefix is not null and starts_with(u.lexeme, i.prefix))` : sql`i.l = u.lexeme`;
  const columns = sql`m.id, m.temporal_context, m.temporal_position, m.search_vector, length(m.content)::float8 as dl`;
  // A filter narrows what is matched before the cap, not after: engram_text_match returns at most
  // `cap` memories of the whole mind, in no order, and when it is full the filter's matches may
  // all be among those it left out (a mind with 2,100 memories holding "meeting" found nothing for
  // q=meeting&category=mistake). Then the filtered memories are matched here, under the policy:
  // without the GIN index (`@@` is not leakproof), through the filter's own indexes, at most `cap`.
  const past = narrowsMatch(filter)
    ? sql`
      union all
      (select ${columns} from memories m
       where (select cardinality(ids) from capped) >= ${match.cap} and m.tenant_id = ${t} and m.mind_id = ${mindId}
         and ${memoryFilterSql(filter)} and m.search_vector @@ ${match.sql} and not (m.id = any((select ids from capped)::uuid[]))
       limit ${match.cap})`
    : sql``;
  return sql`
    with idf as (select * from unnest(${lexemes}::text[], ${idf}::float8[], ${prefixes}::text[]) as i(l, idf, prefix)),
    -- The match goes through engram_text_match (the GIN index; see its migration). An array, so
    -- that the rows are fetched by key (a join would read the whole tenant to hash it).
    capped as (select array(select x.id from engram_text_match(${t}, ${mindId}, ${match.sql}, ${match.cap}) x) as ids),
    matched as (
      select ${columns} from memories m
      where m.tenant_id = ${t} and m.id = any((select ids from capped)::uuid[]) and m.mind_id = ${mindId} and ${memoryFilterSql(filter)}${past})
    -- Rounded to 1e-9: the sum's order follows the plan, and equal scores must tie exactly, so
    -- that the id decides between them and the same search answers in the same order.
    select m.id, m.temporal_context, m.temporal_position,
           round(sum(i.idf * (u.tf * (${bm25.k1}::float8 + 1))
               / (u.tf + ${bm25.k1}::float8 * (1 - ${bm25.b}::float8 + ${bm25.b}::float8 * m.dl / ${query.stats.avgdl}::float8)))::numeric, 9)::float8 as score
    from matched m
    cross join lateral (
      select lexeme, coalesce(array_length(positions, 1), 1)::float8 as tf from unnest(m.search_vector)) u
    join idf i on ${join}
    group by m.id, m.temporal_context, m.temporal_position
    order by score desc, m.id desc
    limit ${limit}`;
}

/**
 * The `limit` memories of the mind nearest `query` (an SQL halfvec expression: the query's vector,
 * or a column of a lateral join) by cosine distance, `(id, temporal_context, temporal_position,
 * score)` with score the distance, best first, among those passing `where` (SQL over the
 * memories' columns). `exact`: every memory of the mind compared, through its b-tree (small
 * minds). Otherwise the HNSW index, which holds the memories of large minds (`vector_indexed`;
 * iterating past `hnsw.ef_search` while the mind's filter removes rows: RetrievalRepository
 * `configureScan`), beside an exact scan of the mind's memories not in it yet
 * (`memories_unindexed_idx`: written before the mind grew large, until the tiering sweep puts
 * them in). docs/design.md §6.1.
 *
 * `arithmetic`: how the scans that compare every row compute a distance. `halfvec` (PostgreSQL):
 * on the stored half-precision values, which native pgvector converts with the CPU's F16C
 * instructions. `vector` (embedded PGlite): both sides widened to single precision first, the
 * same values, so the same distances up to the order of the sum; WebAssembly has no F16C, and
 * there the widened comparison measured 4.0 against 7.1 ms over a 419-memory mind, while on native
 * PostgreSQL it is the slower one (3.4 against 0.85 ms over 2,000 rows; bench/RESULTS.md,
 * "Vectors widened in WebAssembly"). The HNSW branch compares as the index does, halfvec.
 */
export function nearestSql(
  tenantId: string,
  mindId: string,
  query: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  limit: number,
  exact: boolean,
  arithmetic: VectorArithmetic = 'halfvec',
) {
  const mind = sql`tenant_id = ${tenantId} and mind_id = ${mindId} and embedding is not null and ${where}`;
  const distance = arithmetic === 'vector' ? sql`(embedding::vector <=> (${query})::vector)` : sql`(embedding <=> ${query})`;
  const scanned = sql`id, temporal_context, temporal_position, ${distance}::float8 as score`;
  if (exact) {
    // OFFSET 0 keeps the ordering out of the subquery, so the planner cannot answer it with the
    // index (an ORDER BY the distance alone can be, cast or not): every memory of the mind is compared.
    return sql`
      select * from (select ${scanned} from memories where ${mind} offset 0) exact
      order by score, id desc limit ${limit}`;
  }
  const indexed = sql`id, temporal_context, temporal_position, (embedding <=> ${query})::float8 as score`;
  return sql`
    select * from (
      (select ${indexed} from memories where ${mind} and vector_indexed order by embedding <=> ${query} limit ${limit})
      union all
      (select * from (select ${scanned} from memories where ${mind} and not vector_indexed offset 0) unindexed order by score, id desc limit ${limit})) nearest
    order by score, id desc limit ${limit}`;
}

/**
 * How a scan of every row computes a cosine distance ({@link nearestSql}): on the stored halfvec
 * values (native PostgreSQL), or widened to `vector` (embedded PGlite, WebAssembly).
 */
export type VectorArithmetic = 'halfvec' | 'vector';

/** The arithmetic that is faster on a database of this mode ({@link nearestSql}). */
export function vectorArithmetic(mode: DatabaseMode | undefined): VectorArithmetic {
  return mode === 'embedded' ? 'vector' : 'halfvec';
}

/** {@link nearestSql} for the query's vector and a search's filter. */
export function vectorSql(tx: TenantTx, mindId: string, query: readonly number[], filter: MemoryFilter, limit: number, exact: boolean, arithmetic: VectorArithmetic = 'halfvec') {
  return nearestSql(tx.tenantId, mindId, sql`${vectorLiteral(query)}::halfvec`, memoryFilterSql(filter), limit, exact, arithmetic);
}

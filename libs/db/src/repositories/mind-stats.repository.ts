import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { STATS_SAMPLE } from '@engram/memory';
import { PREPARED } from '../prepared';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import { lexemeQuery } from './retrieval-sql';

const M = SAMPLE.uuid;

/**
 * What search and the jobs know of a mind as a whole (docs/design.md §6.1): its size (exact or
 * indexed vector search, BM25's n, the HNSW index of large minds) and its full-text statistics
 * (mean length, document frequencies) for BM25. Each method is one statement.
 */
@Injectable()
export class MindStatsRepository {
  /** Memories of the mind (for choosing exact or indexed vector search, and BM25's n). */
  @GenerateSql({ params: [M] })
  async mindSize(tx: TenantTx, mindId: string): Promise<number> {
    const row = await sql<{ n: number }>`select count(*)::int as n from memories where tenant_id = ${tx.tenantId} and mind_id = ${mindId}`.execute(tx.trx);
    return row.rows[0]?.n ?? 0;
  }

  /**
   * Whether the mind holds at least `n` memories, counting no further than `n` (a large mind's
   * memories go into the HNSW index: libs/services VectorIndexing).
   */
  @GenerateSql({ params: [M, 10_000] })
  async mindHasAtLeast(tx: TenantTx, mindId: string, n: number): Promise<boolean> {
    const { rows } = await sql<{ yes: boolean }>`
      select count(*) >= ${n}::int as yes from (select 1 from memories where tenant_id = ${tx.tenantId} and mind_id = ${mindId} limit ${n}) m`.execute(tx.trx);
    return rows[0]?.yes ?? false;
  }

  /** Mean content length in characters of the mind's newest `STATS_SAMPLE` memories (1 when empty). */
  @GenerateSql({ params: [M] })
  async meanLength(tx: TenantTx, mindId: string): Promise<number> {
    const { rows } = await sql<{ avgdl: number }>`select coalesce(avg(length(content)), 1)::float8 as avgdl from ${sample(tx, mindId)} s`.execute(tx.trx);
    return rows[0]?.avgdl ?? 1;
  }

  /**
   * Memories of the mind holding each lexeme, counted up to `cap` (engram_text_match: the GIN
   * index), all lexemes in one statement: a search's lexemes that its mind's statistics do not
   * know yet cost one round trip, not one each. engram_text_match is PL/pgSQL planned for each
   * call's values (force_custom_plan), so each lexeme still gets its own plan: the GIN index for a
   * rare one, the mind's b-tree up to the cap for a common one.
   *
   * The counts are scalar subqueries of a read of the tenant's own row, not a statement of their
   * own: on Citus that makes the whole statement one router query, run on the worker that holds
   * the tenant's shards over this transaction's connection, as search's statement runs the match.
   * Called alone, the security-definer function runs on the coordinator as engram_auth, and Citus
   * refuses its read of a shard group that this transaction modified over engram_app's
   * connection ("cannot perform query on placements that were modified in this transaction by a
   * different user"). Elsewhere the row read is one primary-key look-up.
   *
   * @returns each lexeme's count (0..cap); `{}` for none
   */
  @GenerateSql({ params: [M, ['budget', 'dgia'], 10_000] })
  async documentFrequencies(tx: TenantTx, mindId: string, lexemes: readonly string[], cap: number): Promise<Map<string, number>> {
    if (lexemes.length === 0) return new Map();
    const { rows } = await sql<{ l: string; df: number }>`
      select c.l, (select count(*)::int from engram_text_match(${tx.tenantId}, ${mindId}, c.q, ${cap})) as df
      from tenants t cross join unnest(${lexemes}::text[], ${lexemes.map(lexemeQuery)}::tsquery[]) as c(l, q)
      where t.id = ${tx.tenantId}${PREPARED}`.execute(tx.trx);
    return new Map(rows.map((r) => [r.l, r.df]));
  }

  /** Each lexeme's share (0..1) of the memories in the mind's newest `STATS_SAMPLE`. */
  @GenerateSql({ params: [M, ['budget', 'dgia']] })
  async sampleShares(tx: TenantTx, mindId: string, lexemes: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await sql<{ l: string; share: number }>`
      select c.l, (select count(*) filter (where s.search_vector @@ c.q)::float8 / greatest(count(*), 1) from ${sample(tx, mindId)} s) as share
      from unnest(${lexemes}::text[], ${lexemes.map(lexemeQuery)}::tsquery[]) as c(l, q)`.execute(tx.trx);
    return new Map(rows.map((r) => [r.l, r.share]));
  }
}

/** The mind's newest memories that estimate its mean length and the frequency of common lexemes. */
function sample(tx: TenantTx, mindId: string) {
  return sql`(select content, search_vector from memories where tenant_id = ${tx.tenantId} and mind_id = ${mindId} order by id desc limit ${STATS_SAMPLE})`;
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { LifecycleConfig } from '@engram/memory';
import { accessAssignmentSql } from '../lifecycle-sql';
import { ACCESS_STATE_COLUMNS, MEMORY_COLUMNS, type AccessState, type MemoryRow } from '../memory-row';
import { PREPARED } from '../prepared';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';

const M = SAMPLE.uuid;

/**
 * Accesses of memories (docs/design.md §5 "On access"): recorded in the reading transaction, or
 * read, locked and written back in a batch by the write-behind flush (libs/services AccessRecorder).
 */
@Injectable()
export class MemoryAccessesRepository {
  /**
   * Records one access of each memory (docs/design.md §5 "On access"; libs/memory
   * `applyAccess`): access count, due review and its reinforcement, re-anchored retention,
   * promotion; one statement for all of them. Rows are updated in index order, so concurrent
   * requests lock them in the same order (TenantDb retries the rare deadlock).
   * @returns the memories after the access, unless `returning` is false.
   */
  @GenerateSql({ params: [M, [M], SAMPLE.date, SAMPLE.config] })
  async recordAccess(
    tx: TenantTx,
    mindId: string,
    ids: readonly string[],
    now: Date,
    config: LifecycleConfig,
    options: { returning?: boolean } = {},
  ): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    // Raw: Kysely's `set` has no row assignment. Prepared (prepared.ts).
    const returning = options.returning === false ? sql`` : sql` returning ${sql.join(MEMORY_COLUMNS.map((c) => sql.ref(`m.${c}`)))}`;
    const { rows } = await sql<MemoryRow>`update memories m set ${accessAssignmentSql(config, now)}
      where m.tenant_id = ${tx.tenantId} and m.mind_id = ${mindId} and m.id = any(${[...ids]}::uuid[])${returning}${PREPARED}`.execute(tx.trx);
    return options.returning === false ? [] : rows;
  }

  /**
   * What an access reads of each memory named (any mind of the tenant; by primary key), locked
   * until the transaction ends so that nothing changes it before {@link writeAccesses}: the
   * write-behind flush (libs/services AccessRecorder) applies its waiting accesses to them in
   * TypeScript. Memories gone meanwhile are not returned.
   */
  @GenerateSql({ params: [[M]] })
  accessStates(tx: TenantTx, ids: readonly string[]): Promise<AccessState[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return tx.trx
      .selectFrom('memories')
      .select(ACCESS_STATE_COLUMNS)
      .where('tenant_id', '=', tx.tenantId)
      .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
      .forNoKeyUpdate()
      .modifyEnd(PREPARED)
      .execute();
  }

  /**
   * Writes accesses' results (the `ACCESS_COLUMNS` of lifecycle-sql, computed by libs/services
   * `accessedRow` from {@link accessStates} read and locked in this transaction), one statement
   * for all of them. An archived memory made warm by an access gets its vector back in the
   * backfill's queue, as {@link recordAccess} does. @returns how many rows were written
   */
  @GenerateSql({ params: [[{ id: M, layer: 'short_term', priority: 'normal', importance_score: 0.5, current_retention: 0.9, retention_at: SAMPLE.date, strength_days: 1, access_count: 1, last_accessed: SAMPLE.date, last_reviewed: SAMPLE.date, review_schedule: [], next_review: null, review_count: 0, forgotten_at: null, occurred_at: SAMPLE.date, created_at: SAMPLE.date, tier: 'warm', embedding_status: 'pending' }]] })
  async writeAccesses(tx: TenantTx, rows: readonly AccessState[]): Promise<number> {
    if (rows.length === 0) return 0;
    const col = <K extends keyof AccessState>(k: K) => rows.map((r) => r[k]);
    const ids = col('id');
    const result = await sql`update memories m set
        access_count = v.access_count, last_accessed = v.last_accessed, current_retention = v.current_retention,
        retention_at = v.retention_at, review_count = v.review_count, last_reviewed = v.last_reviewed,
        next_review = v.next_review, layer = v.layer, strength_days = v.strength_days, forgotten_at = v.forgotten_at,
        tier = v.tier, embedding_status = v.embedding_status,
        embedding_attempts = (case when m.embedding_status = 'archived' and v.embedding_status = 'pending' then 0 else m.embedding_attempts end)
      from unnest(${ids}::uuid[], ${col('access_count')}::int[], ${col('last_accessed')}::timestamptz[], ${col('current_retention')}::float8[],
                  ${col('retention_at')}::timestamptz[], ${col('review_count')}::int[], ${col('last_reviewed')}::timestamptz[],
                  ${col('next_review')}::timestamptz[], ${col('layer')}::text[], ${col('strength_days')}::float8[],
                  ${col('forgotten_at')}::timestamptz[], ${col('tier')}::text[], ${col('embedding_status')}::text[])
        as v(id, access_count, last_accessed, current_retention, retention_at, review_count, last_reviewed, next_review, layer, strength_days, forgotten_at, tier, embedding_status)
      -- id = any(ids) as well as the join: the rows are then found by primary key whatever the
      -- planner estimates of the batch.
      where m.tenant_id = ${tx.tenantId} and m.id = any(${ids}::uuid[]) and m.id = v.id${PREPARED}`.execute(tx.trx);
    return Number(result.numAffectedRows ?? 0n);
  }
}

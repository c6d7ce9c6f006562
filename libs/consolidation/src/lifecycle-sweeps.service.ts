import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { LifecycleSettings, TenantDb, evictableSql, movesToNeocortexSql, retentionNowSql, tierSql } from '@engram/db';

/** Rows per statement: large enough to be set-based, small enough to keep locks short. */
export const SWEEP_BATCH = 5000;

/** What one forgetting sweep of a tenant did. */
export interface ForgettingReport {
  /** Memories whose retention was written down as of `now` (retention snapshot). */
  snapshotted: number;
  softForgotten: number;
  evicted: number;
}

/**
 * The set-based sweeps of the lifecycle (DESIGN §5, §7), per tenant, in batches of
 * {@link SWEEP_BATCH} rows per statement, every rule the SQL form of its libs/memory function
 * (libs/db lifecycle-sql; test/lifecycle-sql.test.ts compares them on random rows). Each is
 * idempotent at a given `now`: running it twice changes nothing the second time, so a job that
 * is retried or runs twice leaves the same state.
 */
@Injectable()
export class LifecycleSweeps {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
  ) {}

  /**
   * The forgetting sweep: retention snapshot (current_retention re-anchored at `now`: the curve
   * is exponential, so its future is unchanged), soft-forgetting (retention < 0.3), eviction
   * (archived and retention < 0.1: deleted, a tombstone kept). Critical memories are pinned.
   */
  async forgetting(tenantId: string, now: Date): Promise<ForgettingReport> {
    const snapshotted = await this.snapshotRetention(tenantId, now);
    const softForgotten = await this.softForget(tenantId, now);
    const evicted = await this.evict(tenantId, now);
    return { snapshotted, softForgotten, evicted };
  }

  /** Writes each memory's retention at `now` into current_retention (retention_at = now), for those last written over an hour before. */
  async snapshotRetention(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    return this.batches(tenantId, (t) => sql`
      update memories set current_retention = ${retentionNowSql(config, now)}, retention_at = ${now}::timestamptz
      where tenant_id = ${t} and id in (
        select id from memories
        where tenant_id = ${t} and current_retention is not null and retention_at < ${now}::timestamptz - interval '1 hour'
        limit ${SWEEP_BATCH} for update skip locked)`);
  }

  /** Soft-forgets every memory whose retention now is below the soft threshold (0.3). */
  async softForget(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    return this.batches(tenantId, (t) => sql`
      update memories set forgotten_at = ${now}::timestamptz
      where tenant_id = ${t} and id in (
        select id from memories
        where tenant_id = ${t} and forgotten_at is null and priority <> 'critical'
          and current_retention is not null
          and ${retentionNowSql(config, now)} < ${config.forgetting.soft_threshold}::float8
        limit ${SWEEP_BATCH} for update skip locked)`);
  }

  /** Deletes archived memories below the eviction threshold, leaving a tombstone each. */
  async evict(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    return this.batches(tenantId, (t) => sql`
      with gone as (
        delete from memories
        where tenant_id = ${t} and id in (
          select id from memories where tenant_id = ${t} and ${evictableSql(config, now)}
          limit ${SWEEP_BATCH} for update skip locked)
        returning tenant_id, id, mind_id, category, key, tier, importance_score, access_count, created_at,
                  ${retentionNowSql(config, now)} as retention)
      insert into memory_tombstones (tenant_id, memory_id, mind_id, category, key, reason, retention, tier, importance_score, access_count, created_at, evicted_at)
      select tenant_id, id, mind_id, category, key, 'evicted', retention, tier, importance_score, access_count, created_at, ${now}::timestamptz from gone
      on conflict (tenant_id, memory_id) do nothing`);
  }

  /** Sets every memory's tier from its access frequency at `now` (seed 000 auto_tiering). */
  async tiering(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    return this.batches(tenantId, (t) => sql`
      update memories set tier = ${tierSql(config, now)}
      where tenant_id = ${t} and id in (
        select id from memories where tenant_id = ${t} and tier <> ${tierSql(config, now)}
        limit ${SWEEP_BATCH} for update skip locked)`);
  }

  /** Moves memories older than 30 days to the neocortex, hippocampus dependency × 0.8 (once). */
  async systems(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    return this.batches(tenantId, (t) => sql`
      update memories set storage_location = 'neocortex', hippocampus_dependency = hippocampus_dependency * ${config.systems.hippocampus_factor}::float8
      where tenant_id = ${t} and id in (
        select id from memories where tenant_id = ${t} and ${movesToNeocortexSql(config, now)}
        limit ${SWEEP_BATCH} for update skip locked)`);
  }

  /** Runs `statement` in its own transaction until a batch comes back short. @returns rows changed. */
  private async batches(tenantId: string, statement: (tenantId: string) => ReturnType<typeof sql>): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tenantDb.run(tenantId, async ({ trx, tenantId: t }) => Number((await statement(t).execute(trx)).numAffectedRows ?? 0n));
      total += n;
      if (n < SWEEP_BATCH) return total;
    }
  }
}

import { Injectable, Optional } from '@nestjs/common';
import { sql } from 'kysely';
import { LifecycleSettings, TenantDb, compressContent, evictableSql, movesToNeocortexSql, retentionNowSql, tierSql } from '@engram/db';
import { gistOf } from '@engram/memory';
import { EngramMetrics } from '@engram/metrics';

/** Rows per statement: large enough to be set-based, small enough to keep locks short. */
export const SWEEP_BATCH = 5000;

/** What one forgetting sweep of a tenant did. */
export interface ForgettingReport {
  /** Memories whose retention was written down as of `now` (retention snapshot). */
  snapshotted: number;
  softForgotten: number;
  evicted: number;
  /** Expired memories (expires_at passed) taken out of the vector index. */
  expired: number;
}

/** What one tiering sweep of a tenant did. */
export interface TieringReport {
  /** Memories whose tier changed. */
  retiered: number;
  /** Cold or archived memories compacted: gist in `content`, full text compressed in `content_z`. */
  compacted: number;
  /** Memories back in hot or warm whose full text was restored. */
  expanded: number;
  /** Memories taken out of the vector index (archive tier, or expired). */
  archived: number;
  /** Memories back from archive whose vector is to be recomputed (the embedding backfill does). */
  unarchived: number;
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
    @Optional() private readonly metrics?: EngramMetrics,
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
    this.metrics?.memoriesSoftForgotten.inc(softForgotten);
    this.metrics?.memoriesEvicted.inc(evicted);
    const expired = await this.leaveVectorIndex(tenantId, now);
    return { snapshotted, softForgotten, evicted, expired };
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

  /**
   * The tiering sweep (seed 000 auto_tiering; DESIGN §5 tiers): sets every memory's tier from its
   * access frequency at `now`, then makes each memory's storage match its tier: cold and archive
   * compacted (gist in the index, full text brotli-compressed), hot and warm expanded; archive
   * out of the vector index, anything else back in it (re-embedded by the backfill).
   */
  async tiering(tenantId: string, now: Date): Promise<TieringReport> {
    const config = await this.settings.forTenant(tenantId);
    const retiered = await this.batches(tenantId, (t) => sql`
      update memories set tier = ${tierSql(config, now)}
      where tenant_id = ${t} and id in (
        select id from memories where tenant_id = ${t} and tier <> ${tierSql(config, now)}
        limit ${SWEEP_BATCH} for update skip locked)`);
    const compacted = await this.compact(tenantId);
    const expanded = await this.expand(tenantId);
    const archived = await this.leaveVectorIndex(tenantId, now);
    const unarchived = await this.batches(tenantId, (t) => sql`
      update memories set embedding_status = 'pending', embedding_attempts = 0
      where tenant_id = ${t} and id in (
        select id from memories
        where tenant_id = ${t} and embedding_status = 'archived' and tier <> 'archive'
          and (expires_at is null or expires_at > ${now}::timestamptz)
        limit ${SWEEP_BATCH} for update skip locked)`);
    return { retiered, compacted, expanded, archived, unarchived };
  }

  /**
   * Archived and expired memories leave the vector index: their vector is dropped (an archived
   * memory is found by its gist, key words, tags and metadata; an expired one is hidden anyway).
   */
  private leaveVectorIndex(tenantId: string, now: Date): Promise<number> {
    return this.batches(tenantId, (t) => sql`
      update memories set embedding = null, embedding_status = 'archived', embedded_at = null
      where tenant_id = ${t} and id in (
        select id from memories
        where tenant_id = ${t} and embedding_status <> 'archived'
          and (tier = 'archive' or expires_at <= ${now}::timestamptz)
        limit ${SWEEP_BATCH} for update skip locked)`);
  }

  /**
   * Compacts cold and archived memories: `content` becomes the gist (libs/memory gistOf, so the
   * full-text index keeps the gist), `content_z` the compressed full text (none when the text is
   * its own gist). Brotli runs here in the app, a batch at a time; each batch is one statement.
   */
  private async compact(tenantId: string): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tenantDb.run(tenantId, async ({ trx, tenantId: t }) => {
        // content_z is not selected: the rows are not compacted yet, their content is the full text.
        const { rows } = await sql<{ id: string; content: string }>`
          select id, content from memories
          where tenant_id = ${t} and not compacted and tier in ('cold', 'archive')
          limit ${SWEEP_BATCH} for update skip locked`.execute(trx);
        if (rows.length === 0) return 0;
        const gists = rows.map((r) => gistOf(r.content));
        const packed = rows.map((r, i) => (gists[i] === r.content ? null : compressContent(r.content)));
        await sql`
          update memories m set compacted = true, content = c.gist, content_z = c.z
          from unnest(${rows.map((r) => r.id)}::uuid[], ${gists}::text[], ${packed}::bytea[]) as c(id, gist, z)
          where m.tenant_id = ${t} and m.id = c.id`.execute(trx);
        return rows.length;
      });
      total += n;
      if (n < SWEEP_BATCH) return total;
    }
  }

  /** Restores the full text of memories back in hot or warm (the plugin inflates `content_z` on select). */
  private async expand(tenantId: string): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tenantDb.run(tenantId, async ({ trx, tenantId: t }) => {
        const rows = await trx
          .selectFrom('memories')
          .select(['id', 'content', 'content_z'])
          .where('tenant_id', '=', t)
          .where('compacted', '=', true)
          .where('tier', 'in', ['hot', 'warm'])
          .limit(SWEEP_BATCH)
          .forUpdate()
          .skipLocked()
          .execute();
        if (rows.length === 0) return 0;
        await sql`
          update memories m set compacted = false, content = c.content, content_z = null
          from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.content)}::text[]) as c(id, content)
          where m.tenant_id = ${t} and m.id = c.id`.execute(trx);
        return rows.length;
      });
      total += n;
      if (n < SWEEP_BATCH) return total;
    }
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

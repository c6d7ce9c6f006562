import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { LifecycleConfig } from '@engram/memory';
import { outboxCte } from '../webhook-events';
import { evictableSql, expiredSql, leavesVectorIndexSql, movesToNeocortexSql, notExpiredSql, retentionNowSql, softForgettableSql, tierSql } from '../lifecycle-sql';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import { relinkNeighboursSql } from './associations.repository';

/** An episode as generalisation reads it (libs/memory `Episode`). */
export interface EpisodeRow {
  id: string;
  content: string;
  occurred_at: Date;
  importance_score: number | null;
  tags: string[];
}

const C = SAMPLE.config;
const D = SAMPLE.date;
const B = SAMPLE.limit;

/**
 * The set-based statements of the background sweeps (docs/design.md §5, §7): each changes at
 * most `limit` rows of one tenant, picked with `for update skip locked` so that two sweeps (or a
 * sweep and a request) never wait on each other, and returns how many it changed; the jobs
 * repeat a statement until a batch comes back short. Every rule is a predicate of
 * libs/db lifecycle-sql, the SQL form of its libs/memory function. Idempotent at a given `now`.
 */
@Injectable()
export class MemorySweepsRepository {
  /** Writes retention at `now` into current_retention (re-anchoring the curve) for rows last written over an hour before. */
  @GenerateSql({ params: [C, D, B] })
  snapshotRetention(tx: TenantTx, config: LifecycleConfig, now: Date, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set current_retention = ${retentionNowSql(config, now)}, retention_at = ${now}::timestamptz
      where tenant_id = ${tx.tenantId} and id in (
        select id from memories
        where tenant_id = ${tx.tenantId} and current_retention is not null and retention_at < ${now}::timestamptz - interval '1 hour'
        limit ${limit} for update skip locked)`);
  }

  /**
   * Soft-forgets memories whose retention fell below the soft threshold (libs/memory
   * `softForgets`), announcing each as `memory.soft_forgotten` to the tenant's subscribed
   * webhook endpoints in the same statement (the outbox).
   */
  @GenerateSql({ params: [C, D, B] })
  softForget(tx: TenantTx, config: LifecycleConfig, now: Date, limit: number): Promise<SweepBatch> {
    return withEvents(tx, sql`
      with rows as (
        update memories set forgotten_at = ${now}::timestamptz
        where tenant_id = ${tx.tenantId} and id in (
          select id from memories where tenant_id = ${tx.tenantId} and ${softForgettableSql(config, now)}
          limit ${limit} for update skip locked)
        returning tenant_id, id, mind_id, category, key),
      ${outboxCte(tx.tenantId, 'memory.soft_forgotten', now, sql`jsonb_build_object('forgotten_at', ${now.toISOString()}::text)`)}`);
  }

  /**
   * Deletes evictable memories (libs/memory `forgettingVerdict` = evict), leaving a tombstone
   * each and announcing each as `memory.evicted` (the outbox); their neighbours in time are
   * linked again by the association job (`relinkNeighboursSql`).
   */
  @GenerateSql({ params: [C, D, B] })
  evict(tx: TenantTx, config: LifecycleConfig, now: Date, limit: number): Promise<SweepBatch> {
    return withEvents(tx, sql`
      with rows as (
        delete from memories
        where tenant_id = ${tx.tenantId} and id in (
          select id from memories where tenant_id = ${tx.tenantId} and ${evictableSql(config, now)}
          limit ${limit} for update skip locked)
        returning tenant_id, id, mind_id, category, key, tier, importance_score, access_count, created_at,
                  ${retentionNowSql(config, now)} as retention),
      ${relinkNeighboursSql(tx.tenantId)},
      tombstones as (
        insert into memory_tombstones (tenant_id, memory_id, mind_id, category, key, reason, retention, tier, importance_score, access_count, created_at, evicted_at)
        select tenant_id, id, mind_id, category, key, 'evicted', retention, tier, importance_score, access_count, created_at, ${now}::timestamptz from rows
        on conflict (tenant_id, memory_id) do nothing),
      ${outboxCte(tx.tenantId, 'memory.evicted', now, sql`jsonb_build_object('evicted_at', ${now.toISOString()}::text, 'retention', r.retention)`)}`);
  }

  /**
   * Announces memories whose expiry passed (libs/memory `isExpired`) as `memory.expired`, once
   * per expiry: `expiry_announced_at` keeps the `expires_at` announced, so a memory given a new
   * expiry is announced again when that one passes. Marks them whether or not the tenant has an
   * endpoint, so an endpoint added later is not sent a backlog of old expiries.
   */
  @GenerateSql({ params: [D, B] })
  announceExpired(tx: TenantTx, now: Date, limit: number): Promise<SweepBatch> {
    return withEvents(tx, sql`
      with rows as (
        update memories set expiry_announced_at = expires_at
        where tenant_id = ${tx.tenantId} and id in (
          select id from memories
          where tenant_id = ${tx.tenantId} and ${expiredSql(now)} and expiry_announced_at is distinct from expires_at
          limit ${limit} for update skip locked)
        returning tenant_id, id, mind_id, category, key, expires_at),
      ${outboxCte(tx.tenantId, 'memory.expired', now, sql`jsonb_build_object('expires_at', to_char(r.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`)}`);
  }

  /** Sets each memory's tier from its access frequency at `now` (libs/memory `tierOf`). */
  @GenerateSql({ params: [C, D, B] })
  retier(tx: TenantTx, config: LifecycleConfig, now: Date, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set tier = ${tierSql(config, now)}
      where tenant_id = ${tx.tenantId} and id in (
        select id from memories where tenant_id = ${tx.tenantId} and tier <> ${tierSql(config, now)}
        limit ${limit} for update skip locked)`);
  }

  /** Archived and expired memories leave the vector index: their vector is dropped (found by gist, key words and tags). */
  @GenerateSql({ params: [D, B] })
  leaveVectorIndex(tx: TenantTx, now: Date, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set embedding = null, embedding_status = 'archived', embedded_at = null
      where tenant_id = ${tx.tenantId} and id in (
        select id from memories
        where tenant_id = ${tx.tenantId} and embedding_status <> 'archived' and ${leavesVectorIndexSql(now)}
        limit ${limit} for update skip locked)`);
  }

  /** Memories back from archive (and not expired) wait for a new vector: the embedding backfill computes it. */
  @GenerateSql({ params: [D, B] })
  rejoinVectorIndex(tx: TenantTx, now: Date, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set embedding_status = 'pending', embedding_attempts = 0
      where tenant_id = ${tx.tenantId} and id in (
        select id from memories
        where tenant_id = ${tx.tenantId} and embedding_status = 'archived' and tier <> 'archive' and ${notExpiredSql(now)}
        limit ${limit} for update skip locked)`);
  }

  /**
   * Puts into the HNSW index (`vector_indexed`) the memories of the tenant's minds that hold at
   * least `min` memories and were written before their mind was known to be that large (the
   * writer indexes a large mind's new memories itself: libs/services VectorIndexing); search scans
   * them exactly until then (docs/design.md §6.1). The minds' sizes are counted through
   * `memories_mind_id_idx`, the memories to index found through `memories_unindexed_idx`.
   */
  @GenerateSql({ params: [10_000, B] })
  indexLargeMinds(tx: TenantTx, min: number, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set vector_indexed = true
      where tenant_id = ${tx.tenantId} and id in (
        select m.id from (select mind_id from memories where tenant_id = ${tx.tenantId} group by mind_id having count(*) >= ${min}::int) large
        join memories m on m.tenant_id = ${tx.tenantId} and m.mind_id = large.mind_id and not m.vector_indexed
        limit ${limit} for update of m skip locked)`);
  }

  /** Cold and archived memories not compacted yet, locked: their content is the full text. */
  @GenerateSql({ params: [B] })
  async toCompact(tx: TenantTx, limit: number): Promise<{ id: string; content: string }[]> {
    // content_z is not selected: these rows are not compacted, their content is the full text.
    const { rows } = await sql<{ id: string; content: string }>`
      select id, content from memories
      where tenant_id = ${tx.tenantId} and not compacted and tier in ('cold', 'archive')
      limit ${limit} for update skip locked`.execute(tx.trx);
    return rows;
  }

  /** Stores compacted forms: the gist in `content` (what full text indexes), the compressed full text (null when the text is its own gist). */
  @GenerateSql({ params: [[{ id: SAMPLE.uuid, gist: 'g', compressed: null }]] })
  async storeCompacted(tx: TenantTx, rows: readonly { id: string; gist: string; compressed: Uint8Array | null }[]): Promise<void> {
    await sql`
      update memories m set compacted = true, content = c.gist, content_z = c.z
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.gist)}::text[], ${rows.map((r) => r.compressed)}::bytea[]) as c(id, gist, z)
      where m.tenant_id = ${tx.tenantId} and m.id = c.id`.execute(tx.trx);
  }

  /** Compacted memories back in hot or warm, locked, with their full text (inflated on select). */
  @GenerateSql({ params: [B] })
  toExpand(tx: TenantTx, limit: number): Promise<{ id: string; content: string; content_z: Uint8Array | Buffer | null }[]> {
    return tx.trx
      .selectFrom('memories')
      .select(['id', 'content', 'content_z'])
      .where('tenant_id', '=', tx.tenantId)
      .where('compacted', '=', true)
      .where('tier', 'in', ['hot', 'warm'])
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  /** Stores memories in full again. */
  @GenerateSql({ params: [[{ id: SAMPLE.uuid, content: 'c' }]] })
  async storeExpanded(tx: TenantTx, rows: readonly { id: string; content: string }[]): Promise<void> {
    await sql`
      update memories m set compacted = false, content = c.content, content_z = null
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.content)}::text[]) as c(id, content)
      where m.tenant_id = ${tx.tenantId} and m.id = c.id`.execute(tx.trx);
  }

  /** Moves memories older than `neocortex_age_days` to the neocortex, hippocampus dependency × the factor, once (libs/memory `systemsConsolidation`). */
  @GenerateSql({ params: [C, D, B] })
  moveToNeocortex(tx: TenantTx, config: LifecycleConfig, now: Date, limit: number): Promise<number> {
    return changed(tx, sql`
      update memories set storage_location = 'neocortex', hippocampus_dependency = hippocampus_dependency * ${config.systems.hippocampus_factor}::float8
      where tenant_id = ${tx.tenantId} and id in (
        select id from memories where tenant_id = ${tx.tenantId} and ${movesToNeocortexSql(config, now)}
        limit ${limit} for update skip locked)`);
  }

  /** The minds with episodes in the neocortex not yet generalised (and not forgotten). */
  @GenerateSql()
  async mindsWithEpisodesToGeneralise(tx: TenantTx): Promise<string[]> {
    const { rows } = await sql<{ mind_id: string }>`
      select distinct mind_id from memories
      where tenant_id = ${tx.tenantId} and memory_type = 'episodic' and storage_location = 'neocortex'
        and forgotten_at is null and not (association_graph ? 'generalised_into')`.execute(tx.trx);
    return rows.map((r) => r.mind_id);
  }

  /** A mind's episodes to generalise, oldest event first, at most `limit` (clustering compares them pairwise). */
  @GenerateSql({ params: [SAMPLE.uuid, B] })
  episodesToGeneralise(tx: TenantTx, mindId: string, limit: number): Promise<EpisodeRow[]> {
    return tx.trx
      .selectFrom('memories')
      .select(['id', 'content', 'content_z', 'occurred_at', 'importance_score', 'tags'])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('memory_type', '=', 'episodic')
      .where('storage_location', '=', 'neocortex')
      .where('forgotten_at', 'is', null)
      .where(sql<boolean>`not (association_graph ? 'generalised_into')`)
      .orderBy('occurred_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Points each episode at the semantic memory it was generalised into (once: a linked episode keeps its link). */
  @GenerateSql({ params: [[SAMPLE.uuid], SAMPLE.uuid2] })
  async linkGeneralised(tx: TenantTx, episodeIds: readonly string[], semanticId: string): Promise<void> {
    await sql`
      update memories set association_graph = association_graph || jsonb_build_object('generalised_into', ${semanticId}::text)
      where tenant_id = ${tx.tenantId} and id = any(${episodeIds}::uuid[]) and not (association_graph ? 'generalised_into')`.execute(tx.trx);
  }
}

/** What a sweep statement that announces its changes did: rows changed, and the webhook deliveries it inserted (to dispatch after commit). */
export interface SweepBatch {
  changed: number;
  deliveries: string[];
}

/** Runs `with rows as (...), events as (...)` (see {@link outboxCte}) and counts both. */
async function withEvents(tx: TenantTx, ctes: RawBuilder<unknown>): Promise<SweepBatch> {
  const { rows } = await sql<{ changed: number; deliveries: string[] }>`${ctes}
    select (select count(*) from rows)::int as changed, coalesce((select array_agg(id) from events), '{}'::uuid[]) as deliveries`.execute(tx.trx);
  const row = rows[0];
  return { changed: row?.changed ?? 0, deliveries: row?.deliveries ?? [] };
}

async function changed(tx: TenantTx, statement: RawBuilder<unknown>): Promise<number> {
  return Number((await statement.execute(tx.trx)).numAffectedRows ?? 0n);
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { LifecycleConfig, MemoryCategory, MemoryPriority } from '@engram/memory';
import { expiredSql, notExpiredSql } from '../lifecycle-sql';
import { memoryFilterSql, type MemoryFilter } from '../memory-filter';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import { relinkNeighboursSql } from './associations.repository';
import { PREPARED } from '../prepared';
import { MEMORY_COLUMNS, type LayerTierCount, type MemoryIdentity, type MemoryRow } from '../memory-row';
import type { MemoryUpdate, NewMemory } from '../schema';

function scoped(tx: TenantTx, mindId: string) {
  return tx.trx.selectFrom('memories').select(MEMORY_COLUMNS).where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId);
}

const M = SAMPLE.uuid;

/**
 * The memories table: a mind's memories by id and key, lists, recall, and the bulk reads and
 * writes of data rights. Writes that create or change a memory go through the services'
 * MemoryWriter, which records the versions; the sweeps' statements are MemorySweepsRepository's,
 * the accesses' MemoryAccessesRepository's.
 */
/** Recall's order of priorities (seed 002 "회상 동작"). */
const PRIORITY_ORDER: readonly MemoryPriority[] = ['critical', 'high', 'normal', 'low'];

@Injectable()
export class MemoriesRepository {
  /**
   * Inserts unless (mind, category, key) exists. A concurrent insert of the same key waits for
   * the other transaction and then returns nothing, so the caller falls back to an update.
   */
  @GenerateSql({ params: [{ id: M, mind_id: M, category: 'note', key: 'k', content: 'c', content_hash: 'h', source: 'agent', confidence: 0.7 }] })
  insertIfAbsent(tx: TenantTx, memory: Omit<NewMemory, 'tenant_id'>): Promise<MemoryRow | undefined> {
    return tx.trx
      .insertInto('memories')
      .values({ ...memory, tenant_id: tx.tenantId })
      .onConflict((oc) => oc.columns(['tenant_id', 'mind_id', 'category', 'key']).doNothing())
      .returning(MEMORY_COLUMNS)
      .executeTakeFirst();
  }

  /** Inserts memories whose keys are known to be free (an import, inside its transaction), 500 rows a statement. */
  @GenerateSql({ params: [[{ id: M, mind_id: M, category: 'note', key: 'k', content: 'c', content_hash: 'h', source: 'agent', confidence: 0.7 }]] })
  async insertMany(tx: TenantTx, memories: readonly Omit<NewMemory, 'tenant_id'>[]): Promise<void> {
    // Each row binds ~45 parameters: 500 rows stay well under PostgreSQL's 65 535 a statement.
    for (let i = 0; i < memories.length; i += 500) {
      await tx.trx
        .insertInto('memories')
        .values(memories.slice(i, i + 500).map((m) => ({ ...m, tenant_id: tx.tenantId })))
        .execute();
    }
  }

  /** The memory with this (category, key), row-locked until the transaction ends. */
  @GenerateSql({ params: [M, 'note', 'k'] })
  findByKeyForUpdate(tx: TenantTx, mindId: string, category: MemoryCategory, key: string): Promise<MemoryRow | undefined> {
    return scoped(tx, mindId).where('category', '=', category).where('key', '=', key).forUpdate().executeTakeFirst();
  }

  /**
   * The memories of these identities in any of the tenant's minds, row-locked (an import's
   * matching). The identities travel as three arrays: PGlite fails on a list of a few hundred row
   * constructors (`(a, b, c) in ((...), (...))`), and one plan serves every size.
   */
  @GenerateSql({ params: [[{ mind_id: M, category: 'note', key: 'k' }]] })
  findByKeysForUpdate(tx: TenantTx, keys: readonly MemoryIdentity[]): Promise<MemoryRow[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return tx.trx
      .selectFrom('memories')
      .select(MEMORY_COLUMNS)
      .where('tenant_id', '=', tx.tenantId)
      .where(
        sql<boolean>`(mind_id, category, key) in (select * from unnest(${keys.map((k) => k.mind_id)}::uuid[], ${keys.map((k) => k.category)}::text[], ${keys.map((k) => k.key)}::text[]))`,
      )
      .forUpdate()
      .execute();
  }

  /** Which of these ids name a memory of the tenant already (in any mind). */
  @GenerateSql({ params: [[M]] })
  async takenIds(tx: TenantTx, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx.trx.selectFrom('memories').select('id').where('tenant_id', '=', tx.tenantId).where('id', 'in', [...ids]).execute();
    return new Set(rows.map((r) => r.id));
  }

  @GenerateSql({ name: 'plain', params: [M, M] }, { name: 'for update', params: [M, M, { forUpdate: true }] })
  findById(tx: TenantTx, mindId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<MemoryRow | undefined> {
    const query = scoped(tx, mindId).where('id', '=', id);
    return (options.forUpdate ? query.forUpdate() : query).modifyEnd(PREPARED).executeTakeFirst();
  }

  /** Memories by id, in no particular order (missing ids are left out). */
  @GenerateSql({ params: [M, [M, SAMPLE.uuid2]] })
  findByIds(tx: TenantTx, mindId: string, ids: readonly string[]): Promise<MemoryRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // One uuid[] rather than a list: one prepared statement whatever the count.
    return scoped(tx, mindId).where(sql<boolean>`id = any(${[...ids]}::uuid[])`).modifyEnd(PREPARED).execute();
  }

  @GenerateSql({ params: [M, M, { content: 'c', version: 2 }] })
  update(tx: TenantTx, mindId: string, id: string, patch: MemoryUpdate): Promise<MemoryRow> {
    return tx.trx
      .updateTable('memories')
      .set(patch)
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('id', '=', id)
      .returning(MEMORY_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /**
   * Deletes a memory with its history and links (cascade). The memories whose own `precedes` /
   * `follows` link pointed at it are marked unlinked (`associated_at` null, {@link relinkNeighboursSql}),
   * so that the association job links them to their new nearest neighbour in time.
   * @returns what it was (its identity), or undefined when there was none
   */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.uuid2] })
  async deleteReturning(tx: TenantTx, mindId: string, id: string): Promise<{ id: string; mind_id: string; category: string; key: string } | undefined> {
    const { rows } = await sql<{ id: string; mind_id: string; category: string; key: string }>`
      with rows as (
        delete from memories where tenant_id = ${tx.tenantId} and mind_id = ${mindId} and id = ${id}
        returning id, mind_id, category, key),
      ${relinkNeighboursSql(tx.tenantId)}
      select id, mind_id, category, key from rows`.execute(tx.trx);
    return rows[0];
  }

  /** Deletes every memory of a mind (their versions first, or by cascade). @returns how many. */
  @GenerateSql({ params: [M] })
  async deleteForMind(tx: TenantTx, mindId: string): Promise<number> {
    const result = await tx.trx.deleteFrom('memories').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * The mind's keyed facts as `category/key`, most recently changed first, episodes left out: what
   * an LLM extracting facts is shown so that it reuses a key for a new value (docs/design.md §4.3).
   */
  @GenerateSql({ params: [M, SAMPLE.limit] })
  async factKeys(tx: TenantTx, mindId: string, limit: number): Promise<string[]> {
    const rows = await tx.trx
      .selectFrom('memories')
      .select(['category', 'key'])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('memory_type', '<>', 'episodic')
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => `${r.category}/${r.key}`);
  }

  /** Memories newest first (UUIDv7 id order), `limit` per page, after the id `after`. */
  @GenerateSql({ params: [M, { category: 'note', tags: ['a'], activeAt: SAMPLE.date }, { after: M, limit: SAMPLE.limit }] })
  list(tx: TenantTx, mindId: string, filter: MemoryFilter, page: { after?: string; limit: number }): Promise<MemoryRow[]> {
    let query = scoped(tx, mindId).where(memoryFilterSql(filter));
    if (page.after) query = query.where('id', '<', page.after);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** A mind's memories oldest id first, after the id `after` (an export, page by page). */
  @GenerateSql({ params: [M, M, SAMPLE.limit] })
  pageOfMind(tx: TenantTx, mindId: string, after: string | undefined, limit: number): Promise<MemoryRow[]> {
    let query = scoped(tx, mindId);
    if (after) query = query.where('id', '>', after);
    return query.orderBy('id').limit(limit).execute();
  }

  /** Memories whose `expires_at` falls in (from, until], soonest first. */
  @GenerateSql({ params: [M, SAMPLE.date, SAMPLE.date2, SAMPLE.limit] })
  expiring(tx: TenantTx, mindId: string, from: Date, until: Date, limit: number): Promise<MemoryRow[]> {
    return scoped(tx, mindId)
      .where('expires_at', '>', from)
      .where('expires_at', '<=', until)
      .orderBy('expires_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
  }

  /**
   * What recall shows: not expired at `at`, not forgotten; priority critical → low, then newest
   * (seed 002 "회상 동작"; docs/design.md §6).
   */
  @GenerateSql({ name: 'all', params: [M, SAMPLE.date, SAMPLE.limit] }, { name: 'critical', params: [M, SAMPLE.date, SAMPLE.limit, { priority: 'critical' }] })
  async recall(tx: TenantTx, mindId: string, at: Date, limit: number, filter: { priority?: MemoryPriority } = {}): Promise<MemoryRow[]> {
    // One range of memories_recall_idx per priority, newest first, `limit` at most from each,
    // then the priorities in order: about `limit` rows read, whatever the mind's size. (One
    // ORDER BY over a rank expression would need that expression as an index condition, which
    // row-level security does not allow: array_position is not leakproof; text equality is.)
    const priorities = filter.priority ? [filter.priority] : PRIORITY_ORDER;
    const ranges = priorities.map(
      (priority, rank) =>
        sql`(select ${rank}::int as recall_rank, r.* from (${scoped(tx, mindId)
          .where('priority', '=', priority)
          .where(notExpiredSql(at))
          .where('forgotten_at', 'is', null)
          .orderBy('updated_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)}) r)`,
    );
    const columns = sql.join(MEMORY_COLUMNS.map((c) => sql.ref(`m.${c}`)));
    const { rows } = await sql<MemoryRow>`select ${columns} from (${sql.join(ranges, sql` union all `)}) m
      order by m.recall_rank, m.updated_at desc, m.id desc limit ${limit}${PREPARED}`.execute(tx.trx);
    return rows;
  }

  /** Counts for the recall header: memories recall could show, and how many are verified. */
  @GenerateSql({ params: [M, SAMPLE.date] })
  async recallCounts(tx: TenantTx, mindId: string, at: Date): Promise<{ total: number; verified: number }> {
    return tx.trx
      .selectFrom('memories')
      .select([sql<number>`count(*)::int`.as('total'), sql<number>`(count(*) filter (where verified))::int`.as('verified')])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where(notExpiredSql(at))
      .where('forgotten_at', 'is', null)
      .modifyEnd(PREPARED)
      .executeTakeFirstOrThrow();
  }

  /** A mind's memories counted by layer and tier, with the forgotten and the expired at `at` among them. */
  @GenerateSql({ params: [M, SAMPLE.date] })
  countsByLayerAndTier(tx: TenantTx, mindId: string, at: Date): Promise<LayerTierCount[]> {
    return tx.trx
      .selectFrom('memories')
      .select([
        'layer',
        'tier',
        sql<number>`count(*)::int`.as('n'),
        sql<number>`(count(*) filter (where forgotten_at is not null))::int`.as('forgotten'),
        sql<number>`(count(*) filter (where ${expiredSql(at)}))::int`.as('expired'),
      ])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .groupBy(['layer', 'tier'])
      .execute();
  }

  /**
   * Recomputes every memory's strength from its layer under new strength parameters (a tenant's
   * settings changed): `S = base × coefficient[layer]`, × the synaptic factor for consolidated
   * memories (libs/memory `layerStrengthDays`), in one statement.
   */
  @GenerateSql({ params: [SAMPLE.config.retention, SAMPLE.config.consolidation.synaptic_factor] })
  async rescaleStrength(tx: TenantTx, retention: LifecycleConfig['retention'], synapticFactor: number): Promise<void> {
    const c = retention.coefficients;
    await sql`
      update memories set strength_days = ${retention.base_strength_days}::float8
        * (case when layer = 'working' then ${c.working}::float8 when layer = 'short_term' then ${c.short_term}::float8 else ${c.long_term}::float8 end)
        * (case when synaptic_consolidated then ${synapticFactor}::float8 else 1 end)
      where tenant_id = ${tx.tenantId} and strength_days is not null`.execute(tx.trx);
  }
}

import { Injectable } from '@nestjs/common';
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { LifecycleConfig, MemoryCategory, MemoryLayer, MemoryPriority, MemoryTier } from '@engram/memory';
import { accessSetSql } from '../lifecycle-sql';
import type { TenantTx } from '../tenant-db';
import type { DB, Memory, MemoryUpdate, NewMemory } from '../schema';

/** The columns a memory is read with: all but the tenant, the vector and the tsvector. */
export const MEMORY_COLUMNS = [
  'id',
  'mind_id',
  'category',
  'key',
  'content',
  'tags',
  'priority',
  'source',
  'verified',
  'confidence',
  'expires_at',
  'occurred_at',
  'created_at',
  'updated_at',
  'version',
  'memory_type',
  'layer',
  'importance_score',
  'initial_retention',
  'current_retention',
  'strength_days',
  'last_reviewed',
  'review_schedule',
  'next_review',
  'review_count',
  'access_count',
  'last_accessed',
  'consolidation_score',
  'forgotten_at',
  'storage_location',
  'tier',
  'payload',
  'association_graph',
  'semantic_tags',
  'temporal_position',
  'temporal_context',
  'source_refs',
  'content_hash',
  'embedding_model',
  'retention_at',
  'importance_source',
  'emotional_weight',
  'hippocampus_dependency',
  'synaptic_consolidated',
  'embedding_status',
  'embedded_at',
  'compacted',
  // Inflated into `content` by CompactContentPlugin: readers see the full text at every tier.
  'content_z',
] as const;

export type MemoryRow = Pick<Memory, (typeof MEMORY_COLUMNS)[number]>;

/** Filters shared by listing, tag look-up and search. Tags are already normalised. */
export interface MemoryFilter {
  category?: MemoryCategory;
  /** Every one of these tags (lower-cased). */
  tags?: string[];
  priority?: MemoryPriority;
  layer?: MemoryLayer;
  tier?: MemoryTier;
  /** Leave out memories whose `expires_at` is at or before this instant. */
  activeAt?: Date;
}

/** How full-text search combines the words of a query. */
export type SearchMode = 'any' | 'all';

export interface SearchHit extends MemoryRow {
  /** `ts_rank` of the memory for the query (higher is better, unbounded). */
  score: number;
}

type MemoryQuery<O> = SelectQueryBuilder<DB, 'memories', O>;

function notExpired(eb: ExpressionBuilder<DB, 'memories'>, at: Date) {
  return eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]);
}

function applyFilter<O>(query: MemoryQuery<O>, filter: MemoryFilter): MemoryQuery<O> {
  let q = query;
  if (filter.category) q = q.where('category', '=', filter.category);
  if (filter.priority) q = q.where('priority', '=', filter.priority);
  if (filter.layer) q = q.where('layer', '=', filter.layer);
  if (filter.tier) q = q.where('tier', '=', filter.tier);
  if (filter.tags && filter.tags.length > 0) q = q.where('tags', '@>', sql<string[]>`${filter.tags}::text[]`);
  if (filter.activeAt) {
    const at = filter.activeAt;
    q = q.where((eb) => notExpired(eb, at));
  }
  return q;
}

/**
 * The tsquery of a search. `all`: websearch syntax (every word, "phrases", -exclusions, or).
 * `any`: any of the query's stemmed words, so a natural-language question matches memories
 * that share some of its words and ranking decides.
 */
function tsQuery(q: string, mode: SearchMode) {
  return mode === 'all'
    ? sql`websearch_to_tsquery('english', ${q})`
    : sql`(select coalesce(string_agg(quote_literal(w), ' | '), '')::tsquery
             from unnest(tsvector_to_array(to_tsvector('english', ${q}))) as w)`;
}

@Injectable()
export class MemoriesRepository {
  private scoped(tx: TenantTx, mindId: string) {
    return tx.trx
      .selectFrom('memories')
      .select(MEMORY_COLUMNS)
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId);
  }

  /**
   * Inserts unless (mind, category, key) exists. A concurrent insert of the same key waits for
   * the other transaction and then returns nothing, so the caller falls back to an update.
   */
  insertIfAbsent(tx: TenantTx, memory: Omit<NewMemory, 'tenant_id'>): Promise<MemoryRow | undefined> {
    return tx.trx
      .insertInto('memories')
      .values({ ...memory, tenant_id: tx.tenantId })
      .onConflict((oc) => oc.columns(['tenant_id', 'mind_id', 'category', 'key']).doNothing())
      .returning(MEMORY_COLUMNS)
      .executeTakeFirst();
  }

  /** The memory with this (category, key), row-locked until the transaction ends. */
  findByKeyForUpdate(tx: TenantTx, mindId: string, category: MemoryCategory, key: string): Promise<MemoryRow | undefined> {
    return this.scoped(tx, mindId).where('category', '=', category).where('key', '=', key).forUpdate().executeTakeFirst();
  }

  findById(tx: TenantTx, mindId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<MemoryRow | undefined> {
    const query = this.scoped(tx, mindId).where('id', '=', id);
    return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
  }

  /** Memories by id, in no particular order (missing ids are left out). */
  findByIds(tx: TenantTx, mindId: string, ids: readonly string[]): Promise<MemoryRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.scoped(tx, mindId).where('id', 'in', [...ids]).execute();
  }

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
   * Records one access of each memory (DESIGN §5 "On access"): access count, due review and its
   * reinforcement, re-anchored retention, promotion; one statement for all of them. Rows are
   * updated in index order, so concurrent requests lock them in the same order (TenantDb retries
   * the rare deadlock). @returns the memories after the access, unless `returning` is false.
   */
  async recordAccess(
    tx: TenantTx,
    mindId: string,
    ids: readonly string[],
    now: Date,
    config: LifecycleConfig,
    options: { returning?: boolean } = {},
  ): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const update = tx.trx
      .updateTable('memories')
      .set(accessSetSql(config, now))
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('id', 'in', [...ids]);
    if (options.returning === false) {
      await update.execute();
      return [];
    }
    return update.returning(MEMORY_COLUMNS).execute();
  }

  /** @returns whether the memory existed. Its versions go with it (cascade). */
  async delete(tx: TenantTx, mindId: string, id: string): Promise<boolean> {
    const result = await tx.trx
      .deleteFrom('memories')
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Memories newest first (UUIDv7 id order), `limit` per page, after the id `after`. */
  list(tx: TenantTx, mindId: string, filter: MemoryFilter, page: { after?: string; limit: number }): Promise<MemoryRow[]> {
    let query = applyFilter(this.scoped(tx, mindId), filter);
    if (page.after) query = query.where('id', '<', page.after);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** Memories whose `expires_at` falls in (from, until], soonest first. */
  expiring(tx: TenantTx, mindId: string, from: Date, until: Date, limit: number): Promise<MemoryRow[]> {
    return this.scoped(tx, mindId)
      .where('expires_at', '>', from)
      .where('expires_at', '<=', until)
      .orderBy('expires_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
  }

  /**
   * Full-text search over content, key words and tags, best `ts_rank` first. Plain `ts_rank`
   * (no length normalisation) ranked best on LoCoMo conv-26 questions: hit@5 0.548, against
   * 0.482-0.528 for `ts_rank_cd` and 0.24-0.50 for the length-normalised variants.
   */
  async search(
    tx: TenantTx,
    mindId: string,
    q: string,
    mode: SearchMode,
    filter: MemoryFilter,
    limit: number,
    forgottenFactor = 1,
  ): Promise<SearchHit[]> {
    const query = tsQuery(q, mode);
    const rows = await applyFilter(this.scoped(tx, mindId), filter)
      // Soft-forgotten memories still answer, ranked down (DESIGN §5: ×0.1).
      .select(sql<number>`ts_rank(search_vector, ${query}) * (case when forgotten_at is null then 1 else ${forgottenFactor}::float8 end)`.as('score'))
      .where(sql<boolean>`search_vector @@ ${query}`)
      .orderBy('score', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows;
  }

  /**
   * What recall shows: not expired at `at`, not forgotten; priority critical → low, then newest
   * (seed 002 "회상 동작"; DESIGN §6).
   */
  recall(tx: TenantTx, mindId: string, at: Date, limit: number, filter: { priority?: MemoryPriority } = {}): Promise<MemoryRow[]> {
    let query = this.scoped(tx, mindId);
    if (filter.priority) query = query.where('priority', '=', filter.priority);
    return query
      .where((eb) => notExpired(eb, at))
      .where('forgotten_at', 'is', null)
      .orderBy(sql`array_position(array['critical','high','normal','low']::text[], priority)`)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Counts for the recall header: memories recall could show, and how many are verified. */
  async recallCounts(tx: TenantTx, mindId: string, at: Date): Promise<{ total: number; verified: number }> {
    const row = await tx.trx
      .selectFrom('memories')
      .select([
        sql<number>`count(*)::int`.as('total'),
        sql<number>`(count(*) filter (where verified))::int`.as('verified'),
      ])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where((eb) => notExpired(eb, at))
      .where('forgotten_at', 'is', null)
      .executeTakeFirstOrThrow();
    return row;
  }
}

import { Injectable } from '@nestjs/common';
import type { Insertable } from 'kysely';
import type { MemoryRow } from '../memory-row';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { ActorType, MemoryChange, MemoryVersion, MemoryVersionsTable } from '../schema';

/** Who made a change: a user, a Mind Key, or the system (background jobs). */
export interface Actor {
  type: ActorType;
  id: string | null;
}

/**
 * The fields of a memory that a write can change, which each version records (and which a
 * `memory.updated` webhook names when they change).
 */
export const WRITTEN_COLUMNS = [
  'content',
  'tags',
  'priority',
  'source',
  'verified',
  'confidence',
  'expires_at',
  'occurred_at',
  'memory_type',
  'payload',
  'source_refs',
  'temporal_context',
  'temporal_position',
  'importance_score',
] as const;

/** The columns a version is read with: all but the tenant. */
export const VERSION_COLUMNS = ['memory_id', 'version', 'mind_id', 'change', 'category', 'key', ...WRITTEN_COLUMNS, 'actor_type', 'actor_id', 'created_at'] as const;

export type MemoryVersionRow = Omit<MemoryVersion, 'tenant_id'>;

/** A version as a restore inserts it (an import's history). */
export type NewMemoryVersion = Omit<Insertable<MemoryVersionsTable>, 'tenant_id'>;

/** Versions per statement of a bulk insert. */
const INSERT_CHUNK = 500;

const M = SAMPLE.uuid;
const SAMPLE_ROW = { id: M, version: 1, mind_id: M, category: 'note', key: 'k', content: 'c', tags: [], priority: 'normal', source: 'agent', verified: false, confidence: 0.7, expires_at: null, updated_at: SAMPLE.date } as unknown as MemoryRow;

@Injectable()
export class MemoryVersionsRepository {
  /** Records the state `memory` is in now as its version `memory.version`. */
  @GenerateSql({ params: [SAMPLE_ROW, 'update', { type: 'user', id: M }] })
  async record(tx: TenantTx, memory: MemoryRow, change: MemoryChange, actor: Actor): Promise<void> {
    await tx.trx
      .insertInto('memory_versions')
      .values({
        tenant_id: tx.tenantId,
        memory_id: memory.id,
        version: memory.version,
        mind_id: memory.mind_id,
        change,
        category: memory.category,
        key: memory.key,
        content: memory.content,
        tags: memory.tags,
        priority: memory.priority,
        source: memory.source,
        verified: memory.verified,
        confidence: memory.confidence,
        expires_at: memory.expires_at,
        occurred_at: memory.occurred_at,
        memory_type: memory.memory_type,
        payload: JSON.stringify(memory.payload),
        source_refs: memory.source_refs,
        temporal_context: memory.temporal_context,
        temporal_position: memory.temporal_position,
        importance_score: memory.importance_score,
        actor_type: actor.type,
        actor_id: actor.id,
        // The instant of the change it records, as the memory has it (not the database's clock).
        created_at: memory.updated_at,
      })
      .execute();
  }

  /** Every version of a memory, newest first. */
  @GenerateSql({ params: [M, M] })
  list(tx: TenantTx, mindId: string, memoryId: string): Promise<MemoryVersionRow[]> {
    return tx.trx
      .selectFrom('memory_versions')
      .select(VERSION_COLUMNS)
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('memory_id', '=', memoryId)
      .orderBy('version', 'desc')
      .execute();
  }

  /** Inserts versions as given (a restore), in statements of at most 500 rows. */
  @GenerateSql({ params: [[{ memory_id: M, version: 1, mind_id: M, change: 'create', category: 'note', key: 'k', content: 'c', tags: [], priority: 'normal', source: 'agent', verified: false, confidence: 0.7, expires_at: null, actor_type: 'user', actor_id: M, created_at: SAMPLE.date }]] })
  async insertMany(tx: TenantTx, versions: readonly NewMemoryVersion[]): Promise<void> {
    for (let i = 0; i < versions.length; i += INSERT_CHUNK) {
      await tx.trx
        .insertInto('memory_versions')
        .values(versions.slice(i, i + INSERT_CHUNK).map((v) => ({ ...v, tenant_id: tx.tenantId })))
        .execute();
    }
  }

  /** The versions of these memories, by memory then oldest first (an export's batch). */
  @GenerateSql({ params: [[M]] })
  forMemories(tx: TenantTx, memoryIds: readonly string[]): Promise<MemoryVersionRow[]> {
    if (memoryIds.length === 0) return Promise.resolve([]);
    return tx.trx
      .selectFrom('memory_versions')
      .select(VERSION_COLUMNS)
      .where('tenant_id', '=', tx.tenantId)
      .where('memory_id', 'in', [...memoryIds])
      .orderBy('memory_id')
      .orderBy('version')
      .execute();
  }

  /** Deletes the history of every memory of a mind. @returns how many versions. */
  @GenerateSql({ params: [M] })
  async deleteForMind(tx: TenantTx, mindId: string): Promise<number> {
    const result = await tx.trx.deleteFrom('memory_versions').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

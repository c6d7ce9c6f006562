import { Injectable } from '@nestjs/common';
import type { TenantTx } from '../tenant-db';
import type { ActorType, MemoryChange, MemoryVersion } from '../schema';
import type { MemoryRow } from './memories.repository';

/** Who made a change: a user, a Mind Key, or the system (background jobs). */
export interface Actor {
  type: ActorType;
  id: string | null;
}

/** The columns a version is read with: all but the tenant. */
export const VERSION_COLUMNS = [
  'memory_id',
  'version',
  'mind_id',
  'change',
  'category',
  'key',
  'content',
  'tags',
  'priority',
  'source',
  'verified',
  'confidence',
  'expires_at',
  'actor_type',
  'actor_id',
  'created_at',
] as const;

export type MemoryVersionRow = Omit<MemoryVersion, 'tenant_id'>;

@Injectable()
export class MemoryVersionsRepository {
  /** Records the state `memory` is in now as its version `memory.version`. */
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
        actor_type: actor.type,
        actor_id: actor.id,
      })
      .execute();
  }

  /** Every version of a memory, newest first. */
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
}

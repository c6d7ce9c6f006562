import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema';
import { GenerateSql } from '../sql-snapshot';

/** Memories over every tenant of a layer and tier: how many live, how many soft-forgotten. */
export interface MemoryCountRow {
  layer: string;
  tier: string;
  live: number;
  forgotten: number;
}

/**
 * Reads with no tenant set, for operators: whether the database answers (the readiness probe)
 * and the memory counts of `/metrics` (security-definer `engram_memory_counts()`, aggregates only).
 */
@Injectable()
export class SystemRepository {
  /** `select 1`: resolves when the database answers. */
  @GenerateSql({ params: [], withoutTenant: true })
  async ping(db: Kysely<DB>): Promise<void> {
    await sql`select 1`.execute(db);
  }

  /** Every tenant's memories counted by layer and tier (one scan of the table). */
  @GenerateSql({ params: [], withoutTenant: true })
  async memoryCounts(db: Kysely<DB>): Promise<MemoryCountRow[]> {
    const { rows } = await sql<{ layer: string; tier: string; live: string; forgotten: string }>`select layer, tier, live, forgotten from engram_memory_counts()`.execute(db);
    return rows.map((r) => ({ layer: r.layer, tier: r.tier, live: Number(r.live), forgotten: Number(r.forgotten) }));
  }
}

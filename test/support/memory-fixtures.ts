import type { INestApplicationContext } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { MemoriesRepository, MemoryAccessesRepository, MemoryVersionsRepository, TenantDb, newId, type DB, type MemoryUpdate, type NewMemory } from '@engram/db';
import { DEFAULT_LIFECYCLE, newMemory, type LifecycleConfig, type MemoryCategory, type MemoryPriority, type MemoryType } from '@engram/memory';
import { MemoryWriter } from '@engram/services';

/**
 * Test memories written through the real writer (MemoryWriter.restore, as an import writes
 * them), so a schema change breaks the fixtures at compile time instead of silently: each row
 * is built by libs/memory `newMemory` from its importance and times, then given the lifecycle
 * state the test needs (what sweeps and accesses would have left).
 */
export interface MemorySeed {
  key: string;
  /** Its id (default: a new UUIDv7). */
  id?: string;
  content?: string;
  category?: MemoryCategory;
  /** 0..1 (default 0.5); the lifecycle is derived from it. */
  importance?: number;
  priority?: MemoryPriority;
  tags?: string[];
  memoryType?: MemoryType;
  /** When the remembered event happened (default: `storedAt`). */
  occurredAt?: Date;
  /** When it was stored, `created_at` (default: now). */
  storedAt?: Date;
  /** Columns as the lifecycle left them (tier, access count, retention, reviews, forgetting, expiry, ...). */
  state?: Partial<Omit<NewMemory, 'tenant_id' | 'id' | 'mind_id' | 'category' | 'key'>>;
}

/** The writer and transactions a fixture writes with: an app's, or ones over a bare Kysely. */
export interface FixtureWriter {
  writer: MemoryWriter;
  memories: MemoriesRepository;
  tenantDb: TenantDb;
}

export function fixtureWriter(source: INestApplicationContext | Kysely<DB>): FixtureWriter {
  if ('get' in source && typeof source.get === 'function' && !('selectFrom' in source)) {
    const app = source as INestApplicationContext;
    return { writer: app.get(MemoryWriter), memories: app.get(MemoriesRepository), tenantDb: app.get(TenantDb) };
  }
  const db = source as Kysely<DB>;
  const memories = new MemoriesRepository();
  return { writer: new MemoryWriter(memories, new MemoryVersionsRepository(), new MemoryAccessesRepository()), memories, tenantDb: new TenantDb(db) };
}

/** Writes the memories into one mind, in one transaction. @returns their ids, in order */
export async function seedMemories(
  into: FixtureWriter,
  scope: { tenantId: string; mindId: string },
  seeds: readonly MemorySeed[],
  options: { config?: LifecycleConfig; now?: Date } = {},
): Promise<string[]> {
  const config = options.config ?? DEFAULT_LIFECYCLE;
  const restored = seeds.map((s) => {
    const storedAt = s.storedAt ?? options.now ?? new Date();
    const fields = newMemory(
      {
        id: s.id ?? newId(),
        mindId: scope.mindId,
        category: s.category ?? 'note',
        key: s.key,
        content: s.content ?? `memory ${s.key}`,
        tags: s.tags,
        priority: s.priority,
        provenance: { source: 'agent', verified: false, confidence: 0.7 },
        occurredAt: s.occurredAt ?? storedAt,
        now: storedAt,
        memoryType: s.memoryType,
        importance: { score: s.importance ?? 0.5, path: 'caller' },
      },
      config,
    );
    const row = { ...fields, payload: JSON.stringify(fields.payload), association_graph: JSON.stringify(fields.association_graph), ...s.state };
    const version = { memory_id: row.id, version: 1, mind_id: row.mind_id, change: 'create' as const, category: row.category, key: row.key, content: row.content, tags: row.tags, priority: row.priority, source: row.source, verified: row.verified, confidence: row.confidence, expires_at: row.expires_at ?? null, actor_type: 'system' as const, actor_id: null, created_at: storedAt };
    return { row, versions: [version] };
  });
  await into.tenantDb.run(scope.tenantId, (tx) => into.writer.restore(tx, restored));
  return restored.map((r) => r.row.id);
}

/**
 * Moves memories back in time by `days` (as if stored, lived and last reviewed that long ago):
 * what a test needs to see a sweep act on an old memory, typed against the schema. Days of UTC
 * (`timezone('UTC', ...)` around the subtraction): immutable arithmetic, which Citus requires of
 * what an UPDATE computes from columns (`timestamptz - interval` is only stable), so the same
 * fixture ages memories on a Citus cluster (test/citus.test.ts).
 */
export async function ageMemories(into: FixtureWriter, tenantId: string, ids: readonly string[], days: number): Promise<void> {
  const shift = `${days} days`;
  const back = (column: string) => sql<Date>`timezone('UTC', timezone('UTC', ${sql.ref(column)}) - ${shift}::interval)`;
  await into.tenantDb.run(tenantId, ({ trx }) =>
    trx
      .updateTable('memories')
      .set({
        occurred_at: back('occurred_at'),
        created_at: back('created_at'),
        retention_at: back('retention_at'),
        last_reviewed: back('last_reviewed'),
        // The review schedule moves with it: its first slot is the grace against soft-forgetting.
        review_schedule: sql`array(select timezone('UTC', timezone('UTC', s) - ${shift}::interval) from unnest(review_schedule) as s order by s)`,
        next_review: back('next_review'),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', [...ids])
      .execute(),
  );
}

/**
 * Puts a stored memory in a lifecycle state (what sweeps and accesses would have left: its tier,
 * accesses, reviews, compaction, when it was stored), through the memories repository.
 */
export async function setMemoryState(into: FixtureWriter, scope: { tenantId: string; mindId: string }, id: string, state: MemoryUpdate): Promise<void> {
  await into.tenantDb.run(scope.tenantId, (tx) => into.memories.update(tx, scope.mindId, id, state));
}

import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { Pool, type Client } from 'pg';
import type { DB } from '@engram/db';
import { fixtureWriter, seedMemories, type MemorySeed } from './memory-fixtures';
import { ownerQuery, type TestDatabase } from './test-db';

// The data set test/crash-safety.test.ts sweeps: one tenant whose memories are built so that a
// forgetting sweep at a fixed `now` has a known outcome per row, large enough that the sweep
// takes several batches (a worker can be killed between them), and the checks of that outcome.

export const TENANT = '0190a000-0000-7000-8000-00000000c0de';
const MIND = '0190a000-0000-7000-8000-00000000beef';
/** The sweep's `now`: fixed, so that the interrupted and the reference run compute the same values. */
export const AT = '2026-01-01T00:00:00.000Z';
const DAY = 86_400_000;

/**
 * Rows by the key's prefix: 6 in 10 evict (archived, retention far below 0.1: forgotten, then
 * deleted with a tombstone), 1 in 10 each fade (hot, far below 0.3: forgotten only), pinned
 * (critical: snapshotted, never forgotten), kept (retention ~0.88: snapshotted only) and recent
 * (snapshotted half an hour before `at`: left alone).
 */
const CLASSES = ['evict', 'evict', 'evict', 'evict', 'evict', 'evict', 'fade', 'pinned', 'kept', 'recent'] as const;
/**
 * Batches of 5000 (SWEEP_BATCH): 6 of snapshots, 5 of soft-forgetting, 4 of eviction, so that a
 * kill after the first eviction batch lands with three still to come.
 */
const ROWS = 30_000;
export const EXPECTED = { evict: 18_000, fade: 3_000, pinned: 3_000, kept: 3_000, recent: 3_000 };
export const FULL_REPORT = { snapshotted: 27_000, soft_forgotten: 21_000, evicted: 18_000 };

/** PostgreSQL's `md5(text)::uuid`: deterministic ids, the same in every database the test seeds. */
const md5Uuid = (text: string) => createHash('md5').update(text).digest('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** One tenant, one mind and {@link ROWS} memories, written through the writer (test/support/memory-fixtures). */
export async function seed(db: TestDatabase): Promise<void> {
  await ownerQuery(db)(`insert into tenants (id, name) values ($1, 'crash safety')`, [TENANT]);
  await ownerQuery(db)(`insert into minds (tenant_id, id, name) values ($1, $2, 'crash mind')`, [TENANT, MIND]);
  const at = Date.parse(AT);
  const stored = new Date(at - 40 * DAY);
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: db.appUrl, max: 1 }) }) });
  try {
    const seeds: MemorySeed[] = Array.from({ length: ROWS }, (_, i) => {
      const c = CLASSES[i % 10] as (typeof CLASSES)[number];
      const kept = c === 'kept' || c === 'recent';
      const anchor = at - (c === 'kept' ? 2 * DAY : c === 'recent' ? 30 * 60_000 : 10 * DAY);
      return {
        id: md5Uuid(`crash-safety-${i}`),
        key: `${c}_${i}`,
        content: `memory number ${i}`,
        priority: c === 'pinned' ? 'critical' : 'normal',
        importance: 0.5,
        storedAt: stored,
        state: { tier: c === 'fade' ? 'hot' : 'archive', layer: 'working', current_retention: kept ? 0.9 : 0.5, retention_at: new Date(anchor), strength_days: kept ? 90 : 1 },
      };
    });
    await seedMemories(fixtureWriter(kysely), { tenantId: TENANT, mindId: MIND }, seeds);
  } finally {
    await kysely.destroy();
  }
  await ownerQuery(db)('analyze memories');
}

/** Every lifecycle value the sweep writes, row by row, as one digest (plus the counts). */
export async function digest(db: TestDatabase) {
  const [m] = await ownerQuery(db)<{ n: number; h: string }>(
    `select count(*)::int as n,
            md5(coalesce(string_agg(concat_ws('|', id, key, priority, tier, current_retention, retention_at, forgotten_at, embedding_status), ',' order by id), '')) as h
     from memories`,
  );
  const [t] = await ownerQuery(db)<{ n: number; h: string }>(
    `select count(*)::int as n,
            md5(coalesce(string_agg(concat_ws('|', memory_id, mind_id, category, key, reason, retention, tier, importance_score, access_count, created_at, evicted_at), ',' order by memory_id), '')) as h
     from memory_tombstones`,
  );
  return { memories: m, tombstones: t };
}

/** The final state the seed rule says, by class: what is left, forgotten and snapshotted, and the tombstones. */
export async function expectFinalState(db: TestDatabase): Promise<void> {
  const byClass = await ownerQuery(db)<{ class: string; n: number; forgotten: number; snapshotted: number }>(
    `select split_part(key, '_', 1) as class, count(*)::int as n,
            (count(*) filter (where forgotten_at = $1::timestamptz))::int as forgotten,
            (count(*) filter (where retention_at = $1::timestamptz))::int as snapshotted
     from memories group by 1 order by 1`,
    [AT],
  );
  expect(byClass).toEqual([
    { class: 'fade', n: EXPECTED.fade, forgotten: EXPECTED.fade, snapshotted: EXPECTED.fade },
    { class: 'kept', n: EXPECTED.kept, forgotten: 0, snapshotted: EXPECTED.kept },
    { class: 'pinned', n: EXPECTED.pinned, forgotten: 0, snapshotted: EXPECTED.pinned },
    { class: 'recent', n: EXPECTED.recent, forgotten: 0, snapshotted: 0 },
  ]);
  const [forgottenElsewhere] = await ownerQuery(db)<{ n: number }>(`select count(*)::int as n from memories where forgotten_at is not null and key not like 'fade\\_%'`);
  expect(forgottenElsewhere?.n).toBe(0);
  // One tombstone for each evicted memory, written at the sweep's `now`, and none for anything else.
  const [tombs] = await ownerQuery(db)<{ n: number; distinct_ids: number; evict_keys: number; at_now: number; seeded_ids: number }>(
    `select count(*)::int as n, count(distinct memory_id)::int as distinct_ids,
            (count(*) filter (where key like 'evict\\_%'))::int as evict_keys,
            (count(*) filter (where evicted_at = $1::timestamptz and reason = 'evicted' and retention < 0.1))::int as at_now,
            (count(*) filter (where memory_id = md5('crash-safety-' || split_part(key, '_', 2))::uuid))::int as seeded_ids
     from memory_tombstones`,
    [AT],
  );
  expect(tombs).toEqual({ n: EXPECTED.evict, distinct_ids: EXPECTED.evict, evict_keys: EXPECTED.evict, at_now: EXPECTED.evict, seeded_ids: EXPECTED.evict });
}

/** Progress of the sweep as the database shows it between its batches. */
export async function progress(c: Client) {
  const { rows } = await c.query<{ snapshotted: number; forgotten: number; tombstones: number; evict_left: number }>(
    `select (select count(*) from memories where retention_at = $1::timestamptz)::int as snapshotted,
            (select count(*) from memories where forgotten_at is not null)::int as forgotten,
            (select count(*) from memory_tombstones)::int as tombstones,
            (select count(*) from memories where key like 'evict\\_%')::int as evict_left`,
    [AT],
  );
  return rows[0] as NonNullable<(typeof rows)[0]>;
}

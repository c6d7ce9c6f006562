import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import { loadConfig } from '@engram/config';
import { JobName, QUEUE_NAMES, QueueName } from '@engram/queues';
import { createWorker } from '../apps/worker/src/create-worker';
import { TEST_REDIS_URL, NO_SCHEDULES } from './support/env';
import { ageMemories, fixtureWriter, seedMemories, type MemorySeed } from './support/memory-fixtures';
import { createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { createTestDatabase, ownerQuery } from './support/test-db';
import { QueueDriver } from './support/queue-driver';

const DAY = 86_400_000;

// The background queues on the real Redis and Postgres (docs/design.md §7): schedulers registered at
// worker start, a fan-out per tenant with deterministic ids, sweeps that reach the states the
// lifecycle formulas say, and that change nothing when run again.
describe('background work (BullMQ worker)', () => {
  let t: TestApp;
  let f: TenantFixture;
  let worker: INestApplicationContext;
  const prefix = `engram-test-${randomBytes(4).toString('hex')}`;
  let driver: QueueDriver;
  const ids: Record<string, string> = {};

  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);

  const fanOut = (queue: QueueName, jobId: string) => driver.fanOut(worker, queue, jobId);

  const state = () =>
    owner<Record<string, unknown>>(
      `select key, tier, layer, forgotten_at, current_retention, retention_at, storage_location, hippocampus_dependency from memories order by key`,
    );

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'background');
    const now = Date.now();
    // Stored as long ago as they happened: tiers and eviction count from when a memory was stored,
    // the lifecycle from its event time.
    const seeds: MemorySeed[] = [
      { key: 'faded', content: 'A minor detail from long ago', importance: 0.1, storedAt: new Date(now - 400 * DAY) },
      { key: 'pinned', content: 'Allergic to penicillin', importance: 0.1, priority: 'critical', storedAt: new Date(now - 400 * DAY) },
      { key: 'fresh', content: 'Started a new job today', importance: 0.9 },
      { key: 'dimming', content: 'Had pasta for lunch', importance: 0.5 },
      { key: 'settled', content: 'Moved to Lisbon last month', importance: 0.85, storedAt: new Date(now - 40 * DAY) },
    ];
    const seeded = await seedMemories(fixtureWriter(t.app), f, seeds);
    seeds.forEach((s, i) => (ids[s.key] = seeded[i] as string));
    worker = await createWorker(
      loadConfig({
        DATABASE_URL: t.db.appUrl,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        WORKER_METRICS_PORT: '0',
        LOG_LEVEL: 'silent',
        // No schedulers: the test drives the fan-outs itself.
        ...NO_SCHEDULES,
      }),
    );
    driver = await QueueDriver.open(prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await driver?.close();
    await t.close();
  });

  it('registers one job scheduler per queue at start, with the configured interval (0: none)', async () => {
    // A worker of its own, on an empty database: a scheduler's first fan-out runs at once.
    const db = await createTestDatabase();
    const ownPrefix = `${prefix}-s`;
    const scheduled = await createWorker(
      loadConfig({
        DATABASE_URL: db.appUrl,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: ownPrefix,
        WORKER_METRICS_PORT: '0',
        LOG_LEVEL: 'silent',
        SLEEP_CYCLE_INTERVAL_MS: '300000',
        FORGETTING_INTERVAL_MS: '900000',
        TIERING_INTERVAL_MS: '3600000',
        SYSTEMS_CONSOLIDATION_INTERVAL_MS: '86400000',
        EMBEDDINGS_BACKFILL_INTERVAL_MS: '0',
        ASSOCIATIONS_INTERVAL_MS: '60000',
      }),
    );
    const every: Record<string, number | undefined> = {};
    try {
      for (const name of QUEUE_NAMES) {
        const q = new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix: ownPrefix });
        every[name] = (await q.getJobSchedulers())[0]?.every;
        await q.close();
      }
    } finally {
      await scheduled.close();
      for (const name of QUEUE_NAMES) {
        const q = new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix: ownPrefix });
        await q.obliterate({ force: true });
        await q.close();
      }
      await db.drop();
    }
    expect(every).toEqual({
      consolidation: 300_000,
      'systems-consolidation': 86_400_000,
      tiering: 3_600_000,
      forgetting: 900_000,
      embedding: undefined,
      associations: 60_000,
    });
  });

  it('tiering, then forgetting, then systems consolidation reach what the formulas say', async () => {
    expect(await fanOut(QueueName.Tiering, 'tiering-1')).toEqual([{ retiered: 3, compacted: 3, expanded: 0, archived: 3, unarchived: 0, indexed: 0 }]);
    const tiers = Object.fromEntries((await state()).map((m) => [m.key, m.tier]));
    expect(tiers).toEqual({ dimming: 'hot', faded: 'archive', pinned: 'archive', fresh: 'hot', settled: 'archive' });

    // Thirty days pass for "dimming" (hot: it was tiered when new).
    await ageMemories(fixtureWriter(t.app), f.tenantId, [ids['dimming'] as string], 30);
    const [forgot] = await fanOut(QueueName.Forgetting, 'forgetting-1');
    // "faded" (archived) is forgotten and evicted; "dimming" (hot) only forgotten.
    expect(forgot).toMatchObject({ soft_forgotten: 2, evicted: 1 });
    const after = await state();
    expect(after.map((m) => m.key)).toEqual(['dimming', 'fresh', 'pinned', 'settled']);
    expect(after.find((m) => m.key === 'dimming')?.forgotten_at).not.toBeNull();
    expect(after.find((m) => m.key === 'pinned')?.forgotten_at).toBeNull();
    expect(after.find((m) => m.key === 'settled')?.forgotten_at).toBeNull();
    const tombstones = await owner<{ key: string; reason: string; tier: string; retention: number }>('select key, reason, tier, retention from memory_tombstones');
    expect(tombstones).toEqual([{ key: 'faded', reason: 'evicted', tier: 'archive', retention: expect.any(Number) }]);
    expect(tombstones[0]!.retention).toBeLessThan(0.1);

    expect(await fanOut(QueueName.SystemsConsolidation, 'systems-1')).toEqual([{ moved_to_neocortex: 3, generalised: 0 }]);
    const places = Object.fromEntries((await state()).map((m) => [m.key, [m.storage_location, m.hippocampus_dependency]]));
    expect(places).toEqual({ dimming: ['neocortex', 0.8], fresh: ['hippocampus', 1], pinned: ['neocortex', 0.8], settled: ['neocortex', 0.8] });
  });

  it('running every sweep again changes nothing; the same fan-out enqueues no tenant twice', async () => {
    // Time moved for "dimming" since it was tiered: one more round settles it.
    for (const queue of [QueueName.Tiering, QueueName.Forgetting, QueueName.SystemsConsolidation]) await fanOut(queue, `${queue}-settle`);
    const before = await state();
    for (const queue of [QueueName.Tiering, QueueName.Forgetting, QueueName.SystemsConsolidation]) {
      const [report] = await fanOut(queue, `${queue}-again`);
      expect([queue, Object.entries(report ?? {}).filter(([, n]) => n !== 0)]).toEqual([queue, []]);
    }
    expect(await state()).toEqual(before);

    const q = driver.queue(QueueName.Tiering);
    const again = await q.add(JobName.FanOut, {}, { jobId: 'tiering-1' });
    expect(again.id).toBe('tiering-1');
    const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'completed');
    // tiering-1, -settle and -again with a tenant job each: nothing new.
    expect(counts.completed).toBe(6);
    expect((counts.waiting ?? 0) + (counts.active ?? 0)).toBe(0);
  });
});

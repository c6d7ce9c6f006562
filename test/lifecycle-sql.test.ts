import fc from 'fast-check';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { MemoriesRepository, MemoryAccessesRepository, TenantDb, type MemoryRow, evictableSql, expiredSql, movesToNeocortexSql, notExpiredSql, retentionNowSql, softForgettableSql, tierSql, type DB } from '@engram/db';
import {
  MEMORY_LAYERS,
  MEMORY_PRIORITIES,
  MEMORY_TIERS,
  applyAccess,
  currentRetention,
  forgettingVerdict,
  isExpired,
  softForgets,
  systemsConsolidation,
  tierOf,
  layerStrengthDays,
  resolveLifecycle,
  reviewSchedule,
  type LifecycleConfig,
  type RetentionState,
} from '@engram/memory';
import { accessedAt, accessedRow } from '@engram/services';
import { fixtureWriter, seedMemories, type FixtureWriter } from './support/memory-fixtures';
import { createTestDatabase, type TestDatabase } from './support/test-db';

// One definition of the forgetting maths: the SQL that sweeps and accesses run must agree with
// libs/memory on any row.
describe('lifecycle SQL agrees with libs/memory', () => {
  let testDb: TestDatabase;
  let db: Kysely<DB>;
  let tenants: TenantDb;
  let fixtures: FixtureWriter;
  const tenant = uuidv7();
  const mind = uuidv7();
  const T0 = Date.parse('2026-01-01T00:00:00Z');
  const configs: LifecycleConfig[] = (['seed', 'calibrated'] as const).map((preset) => {
    const r = resolveLifecycle({ retention: { preset } });
    if (!r.success) throw r.error;
    return r.data;
  });

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: testDb.appUrl, max: 2 }) }) });
    tenants = new TenantDb(db);
    fixtures = fixtureWriter(db);
    await tenants.run(tenant, async ({ trx }) => {
      await trx.insertInto('tenants').values({ id: tenant, name: 't' }).execute();
      await trx.insertInto('minds').values({ tenant_id: tenant, id: mind, name: 'm', description: null }).execute();
    });
  });
  afterAll(async () => {
    await db.destroy();
    await testDb.drop();
  });

  const arbRow = fc.record({
    importance: fc.double({ min: 0, max: 1, noNaN: true }),
    layer: fc.constantFrom(...MEMORY_LAYERS),
    priority: fc.constantFrom(...MEMORY_PRIORITIES),
    retention: fc.double({ min: 0, max: 1, noNaN: true }),
    bornHours: fc.double({ min: 0, max: 2000, noNaN: true }),
    anchorAfterBornHours: fc.double({ min: 0, max: 500, noNaN: true }),
    access: fc.nat(500),
    reviews: fc.nat(5),
    forgotten: fc.boolean(),
  });

  it.each([0, 1])('on 300 random rows (preset %#): retention now, and a whole access', async (which) => {
    const config = configs[which] as LifecycleConfig;
    const rows = fc.sample(arbRow, { numRuns: 300, seed: 42 + which });
    const now = new Date(T0 + 2600 * 3_600_000);
    const states = new Map<string, RetentionState>();
    await tenants.run(tenant, (tx) => new MemoriesRepository().deleteForMind(tx, mind));
    const seeds = rows.map((r, i) => {
      const born = new Date(T0 + r.bornHours * 3_600_000);
      const schedule = reviewSchedule(born, r.importance, config);
      const state: RetentionState = {
        importance_score: r.importance,
        layer: r.layer,
        priority: r.priority,
        current_retention: r.retention,
        retention_at: new Date(born.getTime() + r.anchorAfterBornHours * 3_600_000),
        strength_days: layerStrengthDays(r.layer, config),
        access_count: r.access,
        last_accessed: null,
        last_reviewed: born,
        review_schedule: schedule,
        next_review: schedule[r.reviews] ?? null,
        review_count: r.reviews,
        forgotten_at: r.forgotten ? born : null,
        event_at: born,
      };
      const { event_at: _born, ...columns } = state;
      return { state, seed: { key: `k${i}`, importance: r.importance, priority: r.priority, occurredAt: born, storedAt: born, state: columns } };
    });
    const ids = await seedMemories(fixtures, { tenantId: tenant, mindId: mind }, seeds.map((x) => x.seed), { config });
    ids.forEach((id, i) => states.set(id, (seeds[i] as (typeof seeds)[number]).state));

    const sqlNow = await tenants.run(tenant, ({ trx }) =>
      trx.selectFrom('memories').select(['id', retentionNowSql(config, now).as('r')]).execute(),
    );
    for (const { id, r } of sqlNow) {
      expect(r).toBeCloseTo(currentRetention(states.get(id) as RetentionState, now, config), 9);
    }

    const accessed = await tenants.run(tenant, (tx) => new MemoryAccessesRepository().recordAccess(tx, mind, [...states.keys()], now, config));
    expect(accessed).toHaveLength(300);
    for (const row of accessed) {
      const expected = applyAccess(states.get(row.id) as RetentionState, now, config);
      expect({
        id: row.id,
        access_count: row.access_count,
        review_count: row.review_count,
        layer: row.layer,
        next_review: row.next_review?.toISOString() ?? null,
        last_reviewed: row.last_reviewed?.toISOString() ?? null,
        forgotten: row.forgotten_at !== null,
        retention_at: row.retention_at?.toISOString(),
      }).toEqual({
        id: row.id,
        access_count: expected.access_count,
        review_count: expected.review_count,
        layer: expected.layer,
        next_review: expected.next_review?.toISOString() ?? null,
        last_reviewed: expected.last_reviewed.toISOString(),
        forgotten: expected.forgotten_at !== null,
        retention_at: expected.retention_at.toISOString(),
      });
      expect(row.current_retention).toBeCloseTo(expected.current_retention, 9);
      expect(row.strength_days).toBeCloseTo(expected.strength_days, 9);
    }
    // Sanity: the sample exercised reviews, promotions and restorations.
    const before = [...states.values()];
    expect(accessed.filter((r) => r.review_count > (states.get(r.id) as RetentionState).review_count).length).toBeGreaterThan(10);
    expect(accessed.filter((r) => r.layer !== (states.get(r.id) as RetentionState).layer).length).toBeGreaterThan(10);
    expect(before.filter((s) => s.forgotten_at).length).toBeGreaterThan(10);
    await sql`select 1`.execute(db);
  });

  it.each([0, 1])('write-behind (preset %#): accesses written later, each at its own instant, and the rows answered before, agree with writing them at once', async (which) => {
    const config = configs[which] as LifecycleConfig;
    const rows = fc.sample(fc.record({ row: arbRow, archived: fc.boolean(), bare: fc.boolean() }), { numRuns: 200, seed: 7 + which });
    const t1 = new Date(T0 + 2600 * 3_600_000);
    const t2 = new Date(t1.getTime() + 30 * 3_600_000);
    const repo = new MemoriesRepository();
    const accesses = new MemoryAccessesRepository();
    await tenants.run(tenant, (tx) => repo.deleteForMind(tx, mind));
    const seeds = rows.flatMap(({ row: r, archived, bare }, i) => {
      const born = new Date(T0 + r.bornHours * 3_600_000);
      const schedule = reviewSchedule(born, r.importance, config);
      // A row without lifecycle fields (an import of one that had none) takes the SQL's other branch.
      const lifecycle = bare
        ? { current_retention: null, retention_at: null, strength_days: null, last_reviewed: null, initial_retention: null }
        : {
            current_retention: r.retention,
            retention_at: new Date(born.getTime() + r.anchorAfterBornHours * 3_600_000),
            strength_days: layerStrengthDays(r.layer, config),
            last_reviewed: born,
          };
      const state = {
        layer: r.layer,
        ...lifecycle,
        access_count: r.access,
        review_schedule: schedule,
        next_review: schedule[r.reviews] ?? null,
        review_count: r.reviews,
        forgotten_at: r.forgotten ? born : null,
        ...(archived ? { tier: 'archive' as const, embedding_status: 'archived' as const } : {}),
      };
      // Twins: one written at once, one written behind.
      return ['now', 'behind'].map((how) => ({ key: `${how}_${i}`, importance: r.importance, priority: r.priority, occurredAt: born, storedAt: born, state }));
    });
    const ids = await seedMemories(fixtures, { tenantId: tenant, mindId: mind }, seeds, { config });
    const pairs = rows.map((_, i) => ({ now: ids[2 * i] as string, behind: ids[2 * i + 1] as string }));
    const before = new Map((await tenants.run(tenant, (tx) => repo.findByIds(tx, mind, ids))).map((r) => [r.id, r]));
    // Two accesses each: at once, in two transactions; behind, as one flush of two rounds.
    await tenants.run(tenant, (tx) => accesses.recordAccess(tx, mind, pairs.map((p) => p.now), t1, config, { returning: false }));
    await tenants.run(tenant, (tx) => accesses.recordAccess(tx, mind, pairs.map((p) => p.now), t2, config, { returning: false }));
    // What the recorder's flush does (libs/services AccessRecorder): read and lock, apply in TypeScript, write.
    const writeBehind = (items: string[], instants: Date[]) =>
      tenants.run(tenant, async (tx) => accesses.writeAccesses(tx, (await accesses.accessStates(tx, items)).map((s) => accessedAt(s, instants, config))));
    expect(await writeBehind(pairs.map((p) => p.behind), [t1, t2])).toBe(pairs.length);
    const after = new Map((await tenants.run(tenant, (tx) => repo.findByIds(tx, mind, ids))).map((r) => [r.id, r]));
    const lifecycle = (r: MemoryRow) => ({
      access_count: r.access_count,
      last_accessed: r.last_accessed?.toISOString() ?? null,
      review_count: r.review_count,
      last_reviewed: r.last_reviewed?.toISOString() ?? null,
      next_review: r.next_review?.toISOString() ?? null,
      layer: r.layer,
      retention_at: r.retention_at?.toISOString() ?? null,
      forgotten: r.forgotten_at !== null,
      tier: r.tier,
      embedding_status: r.embedding_status,
      current_retention: r.current_retention === null ? null : Number(r.current_retention.toFixed(9)),
      strength_days: r.strength_days === null ? null : Number(r.strength_days.toFixed(9)),
    });
    let promoted = 0;
    for (const p of pairs) {
      const atOnce = after.get(p.now) as MemoryRow;
      expect(lifecycle(after.get(p.behind) as MemoryRow)).toEqual(lifecycle(atOnce));
      // What a read answered before the flush: the TypeScript form, access after access.
      const answered = accessedRow(accessedRow(before.get(p.now) as MemoryRow, t1, config), t2, config);
      expect(lifecycle(answered)).toEqual(lifecycle(atOnce));
      if (atOnce.layer !== (before.get(p.now) as MemoryRow).layer) promoted += 1;
    }
    // The sample exercised promotions, reviews, revival and rehydration.
    expect(promoted).toBeGreaterThan(10);
    expect(pairs.filter((p) => (before.get(p.now) as MemoryRow).forgotten_at && !(after.get(p.now) as MemoryRow).forgotten_at).length).toBeGreaterThan(5);
    expect(pairs.filter((p) => (before.get(p.now) as MemoryRow).tier === 'archive').length).toBeGreaterThan(20);

    // An access that reaches the table after a later one (another process's flush, or a sweep's
    // re-anchoring, came first) is applied at that later instant: the curve is never re-anchored backwards.
    const [first] = pairs;
    await writeBehind([(first as { now: string }).now], [t1]);
    const late = (await tenants.run(tenant, (tx) => repo.findByIds(tx, mind, [(first as { now: string }).now])))[0] as MemoryRow;
    expect(late.last_accessed?.toISOString()).toBe(t2.toISOString());
    expect(late.access_count).toBe((after.get((first as { now: string }).now) as MemoryRow).access_count + 1);
  });

  it('tier, eviction and the move to the neocortex agree with tierOf, forgettingVerdict and systemsConsolidation', async () => {
    const config = configs[1] as LifecycleConfig;
    const now = new Date(T0 + 200 * 86_400_000);
    const arb = fc.record({
      // Young, any age, and stored long enough to be evicted (30 days).
      ageDays: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.double({ min: 0, max: 120, noNaN: true }), fc.double({ min: 33, max: 120, noNaN: true })),
      createdLaterDays: fc.double({ min: 0, max: 3, noNaN: true }),
      access: fc.oneof(fc.nat(5), fc.nat(3000)),
      tier: fc.constantFrom(...MEMORY_TIERS),
      priority: fc.constantFrom(...MEMORY_PRIORITIES),
      retention: fc.double({ min: 0, max: 1, noNaN: true }),
      anchorDaysAgo: fc.double({ min: 0, max: 30, noNaN: true }),
      neocortex: fc.boolean(),
    });
    const rows = fc.sample(arb, { numRuns: 300, seed: 7 });
    const byId = new Map<string, (typeof rows)[number] & { born: Date; created: Date; state: RetentionState }>();
    await tenants.run(tenant, (tx) => new MemoriesRepository().deleteForMind(tx, mind));
    const seeds = rows.map((r, i) => {
      const born = new Date(now.getTime() - r.ageDays * 86_400_000);
      const state: RetentionState = {
        importance_score: 0.5,
        layer: 'short_term',
        priority: r.priority,
        current_retention: r.retention,
        retention_at: new Date(now.getTime() - r.anchorDaysAgo * 86_400_000),
        strength_days: layerStrengthDays('short_term', config),
        access_count: r.access,
        last_accessed: null,
        last_reviewed: born,
        review_schedule: [],
        next_review: null,
        review_count: 0,
        forgotten_at: null,
        event_at: born,
      };
      // occurred_at is the event; created_at the write, up to 3 days later (an import).
      const created = new Date(Math.min(now.getTime(), born.getTime() + r.createdLaterDays * 86_400_000));
      const seed = {
        key: `t${i}`,
        importance: 0.5,
        priority: r.priority,
        occurredAt: born,
        storedAt: created,
        state: { layer: 'short_term' as const, current_retention: r.retention, retention_at: state.retention_at, strength_days: state.strength_days, access_count: r.access, tier: r.tier, storage_location: r.neocortex ? ('neocortex' as const) : ('hippocampus' as const), created_at: created },
      };
      return { row: { ...r, born, created, state }, seed };
    });
    const ids = await seedMemories(fixtures, { tenantId: tenant, mindId: mind }, seeds.map((x) => x.seed), { config });
    ids.forEach((id, i) => byId.set(id, (seeds[i] as (typeof seeds)[number]).row));
    const got = await tenants.run(tenant, ({ trx }) =>
      trx
        .selectFrom('memories')
        .select(['id', tierSql(config, now).as('tier_now'), evictableSql(config, now).as('evict'), movesToNeocortexSql(config, now).as('moves')])
        .execute(),
    );
    const counts = { tiers: new Set<string>(), evict: 0, moves: 0 };
    for (const row of got) {
      const r = byId.get(row.id)!;
      expect([row.id, row.tier_now]).toEqual([row.id, tierOf(r.access, r.created, now, config)]);
      const retention = currentRetention(r.state, now, config);
      expect([row.id, row.evict]).toEqual([row.id, forgettingVerdict({ retention, tier: r.tier, priority: r.priority, stored_days: (now.getTime() - r.created.getTime()) / 86_400_000 }, config) === 'evict']);
      const moved = systemsConsolidation({ storage_location: r.neocortex ? 'neocortex' : 'hippocampus', hippocampus_dependency: 1 }, r.born, now, config);
      expect([row.id, row.moves]).toEqual([row.id, !r.neocortex && moved.storage_location === 'neocortex']);
      counts.tiers.add(row.tier_now);
      counts.evict += row.evict ? 1 : 0;
      counts.moves += row.moves ? 1 : 0;
    }
    // Sanity: the sample reached every tier and both verdicts.
    expect([...counts.tiers].sort()).toEqual(['archive', 'cold', 'hot', 'warm']);
    expect(counts.evict).toBeGreaterThan(5);
    expect(counts.moves).toBeGreaterThan(5);
  });

  it('soft-forgetting and expiry agree with softForgets and isExpired', async () => {
    const config = configs[1] as LifecycleConfig;
    const now = new Date(T0 + 100 * 86_400_000);
    const arb = fc.record({
      priority: fc.constantFrom(...MEMORY_PRIORITIES),
      // Untracked (no lifecycle fields), and retentions either side of the soft threshold.
      retention: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      anchorDaysAgo: fc.double({ min: 0, max: 60, noNaN: true }),
      forgotten: fc.boolean(),
      expiresInHours: fc.option(fc.oneof(fc.double({ min: -500, max: 500, noNaN: true }), fc.constant(0)), { nil: null }),
      // The grace: the first review slot ahead, behind, or no schedule at all.
      firstReviewInHours: fc.option(fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }), fc.constant(0)), { nil: null }),
    });
    const rows = fc.sample(arb, { numRuns: 300, seed: 11 });
    await tenants.run(tenant, (tx) => new MemoriesRepository().deleteForMind(tx, mind));
    const expected = new Map<string, { soft: boolean; expired: boolean }>();
    const seeds = rows.map((r, i) => {
      const anchor = new Date(now.getTime() - r.anchorDaysAgo * 86_400_000);
      const expiresAt = r.expiresInHours === null ? null : new Date(now.getTime() + r.expiresInHours * 3_600_000);
      const strength = layerStrengthDays('short_term', config);
      const retention = r.retention === null ? null : currentRetention({ current_retention: r.retention, retention_at: anchor, strength_days: strength, access_count: 0 }, now, config);
      const firstReview = r.firstReviewInHours === null ? null : new Date(now.getTime() + r.firstReviewInHours * 3_600_000);
      const schedule = firstReview === null ? [] : [firstReview, new Date(firstReview.getTime() + 6 * 3_600_000)];
      return {
        want: { soft: softForgets({ retention, priority: r.priority, forgotten_at: r.forgotten ? anchor : null, first_review: firstReview }, now, config), expired: isExpired(expiresAt, now) },
        seed: {
          key: `s${i}`,
          priority: r.priority,
          storedAt: new Date(now.getTime() - 90 * 86_400_000),
          state: { layer: 'short_term' as const, current_retention: r.retention, retention_at: r.retention === null ? null : anchor, strength_days: r.retention === null ? null : strength, access_count: 0, forgotten_at: r.forgotten ? anchor : null, expires_at: expiresAt, review_schedule: schedule, next_review: schedule[0] ?? null },
        },
      };
    });
    const ids = await seedMemories(fixtures, { tenantId: tenant, mindId: mind }, seeds.map((x) => x.seed), { config });
    ids.forEach((id, i) => expected.set(id, (seeds[i] as (typeof seeds)[number]).want));
    const got = await tenants.run(tenant, ({ trx }) =>
      trx.selectFrom('memories').select(['id', softForgettableSql(config, now).as('soft'), expiredSql(now).as('expired'), notExpiredSql(now).as('active')]).execute(),
    );
    const counts = { soft: 0, expired: 0 };
    for (const row of got) {
      const want = expected.get(row.id)!;
      expect([row.id, row.soft, row.expired, row.active]).toEqual([row.id, want.soft, want.expired, !want.expired]);
      counts.soft += want.soft ? 1 : 0;
      counts.expired += want.expired ? 1 : 0;
    }
    // Sanity: both verdicts, both ways.
    expect(counts.soft).toBeGreaterThan(20);
    expect(counts.soft).toBeLessThan(280);
    expect(counts.expired).toBeGreaterThan(20);
    expect(counts.expired).toBeLessThan(280);
  });
});

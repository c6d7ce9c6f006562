import fc from 'fast-check';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { MemoriesRepository, TenantDb, retentionNowSql, type DB } from '../libs/db/src';
import {
  MEMORY_LAYERS,
  MEMORY_PRIORITIES,
  applyAccess,
  currentRetention,
  layerStrengthDays,
  resolveLifecycle,
  reviewSchedule,
  type LifecycleConfig,
  type RetentionState,
} from '../libs/memory/src';
import { createTestDatabase, type TestDatabase } from './support/test-db';

// One definition of the forgetting maths: the SQL that sweeps and accesses run must agree with
// libs/memory on any row.
describe('lifecycle SQL agrees with libs/memory', () => {
  let testDb: TestDatabase;
  let db: Kysely<DB>;
  let tenants: TenantDb;
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
    await tenants.run(tenant, async ({ trx }) => {
      await trx.deleteFrom('memories').execute();
      for (const [i, r] of rows.entries()) {
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
          born_at: born,
        };
        const id = uuidv7();
        states.set(id, state);
        await trx
          .insertInto('memories')
          .values({
            tenant_id: tenant,
            id,
            mind_id: mind,
            category: 'note',
            key: `k${i}`,
            content: 'x',
            source: 'agent',
            confidence: 0.7,
            content_hash: 'x',
            priority: r.priority,
            importance_score: state.importance_score,
            layer: state.layer,
            current_retention: state.current_retention,
            retention_at: state.retention_at,
            strength_days: state.strength_days,
            access_count: state.access_count,
            last_reviewed: state.last_reviewed,
            review_schedule: state.review_schedule,
            next_review: state.next_review,
            review_count: state.review_count,
            forgotten_at: state.forgotten_at,
            occurred_at: born,
            created_at: born,
          })
          .execute();
      }
    });

    const sqlNow = await tenants.run(tenant, ({ trx }) =>
      trx.selectFrom('memories').select(['id', retentionNowSql(config, now).as('r')]).execute(),
    );
    for (const { id, r } of sqlNow) {
      expect(r).toBeCloseTo(currentRetention(states.get(id) as RetentionState, now, config), 9);
    }

    const accessed = await tenants.run(tenant, (tx) => new MemoriesRepository().recordAccess(tx, mind, [...states.keys()], now, config));
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
});

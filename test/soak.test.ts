import { formatSoak, runSoak } from '../bench/soak-run';
import { buildApps, freePort, spawnService, type ChildService } from './support/child-service';
import { NO_RATE_LIMITS, NO_SCHEDULES } from './support/env';
import { TEST_JWT_SECRET } from './support/test-app';
import { createTestDatabase, type TestDatabase } from './support/test-db';

// The soak's short form (issue 8 §7; the full one is `npm run bench:soak`, results in
// bench/RESULTS.md): 30 s of the same mixed traffic against the API as a child process built
// with swc, and not one error. Memory is only bounded loosely here: in 30 s the API is still
// warming up (JIT, connection pool, caches, the first GCs), so its RSS rises whatever happens
// later, and a slope over seconds says nothing about a leak; the 10-minute run judges that.

/** Far above a healthy API's few hundred MiB, far below what a runaway leak reaches in 30 s of this load. */
const LOOSE_RSS_LIMIT_MB = 1024;

describe('soak, short form', () => {
  let build: ReturnType<typeof buildApps>;
  let db: TestDatabase;
  let api: ChildService;
  let url: string;

  beforeAll(async () => {
    build = buildApps(['apps/api']);
    db = await createTestDatabase();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    api = spawnService(build.dir, 'apps/api/src/main.js', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.appUrl,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      ...NO_RATE_LIMITS,
      ...NO_SCHEDULES,
    });
    await api.answering(`${url}/health/ready`);
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await db?.drop();
    build?.remove();
  });

  it('30 s of mixed traffic over 3 tenants and 6 minds: every request answered as expected', async () => {
    const result = await runSoak({ url, durationMs: 30_000, tenants: 3, mindsPerTenant: 2, concurrency: 6, sampleEveryMs: 5_000 });
    process.stdout.write(`${formatSoak(result)}\n`);
    expect(result.error_samples).toEqual([]);
    expect(result.errors).toBe(0);
    // Every kind of request ran, and plenty of them.
    for (const k of result.kinds) expect({ kind: k.kind, ran: k.requests > 20 }).toEqual({ kind: k.kind, ran: true });
    expect(result.memory.rss_max_mb).toBeLessThan(LOOSE_RSS_LIMIT_MB);
    expect(api.running).toBe(true);
  }, 120_000);
});

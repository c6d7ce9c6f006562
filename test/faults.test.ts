import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { buildApps, freePort, spawnService, waitFor, type ChildService } from './support/child-service';
import { NO_SCHEDULES } from './support/env';
import { FakeEmbeddingsServer } from './support/fake-embeddings-server';
import { TEST_JWT_SECRET } from './support/test-app';
import { createMigratedDatabase } from './support/test-db';

// Faults against real services (issue 8 §4). PostgreSQL and Redis are private instances that
// scripts/fault-services.sh starts, stops and restarts (never the machine's shared ones), and
// the API and the worker run as child processes built with swc, so an outage hits what
// production runs. The third fault, a worker SIGKILLed mid-job, is test/crash-safety.test.ts.

const SCRIPT = resolve(__dirname, '../scripts/fault-services.sh');
/** How long the API may take to answer again once PostgreSQL is back, without a restart. */
const PG_RECOVERY_MS = 20_000;
/** How long the worker may take to catch up once Redis is back (its sweeps run every second). */
const REDIS_CATCH_UP_MS = 60_000;

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  retryAfter: string | null;
  ms: number;
}

describe('faults: Redis down, PostgreSQL restarted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-faults-'));
  const service = (name: 'redis' | 'postgres' | 'all', action: string): string =>
    execFileSync(SCRIPT, [name, action], { env: { ...process.env, FAULT_DIR: dir }, encoding: 'utf8' }).trim();
  let build: ReturnType<typeof buildApps>;
  let ownerUrl: string;
  let api: ChildService;
  let worker: ChildService;
  let base: string;
  const embeddings = new FakeEmbeddingsServer();
  let owner: Record<string, string>;
  let agent: Record<string, string>;
  let email: string;

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> => {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
    return { status: res.status, body: json, text, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0 };
  };
  const ok = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> => {
    const a = await call(method, path, headers, body);
    if (a.status >= 300) throw new Error(`${method} ${path} → ${a.status}: ${a.text.slice(0, 300)}`);
    return a;
  };
  const count = async (where: string): Promise<number> => {
    const c = new Client({ connectionString: ownerUrl });
    await c.connect();
    try {
      return (await c.query<{ n: number }>(`select count(*)::int as n from memories where ${where}`)).rows[0]?.n ?? 0;
    } finally {
      await c.end();
    }
  };
  const alive = (s: ChildService) => {
    if (!s.running) throw new Error(`a service exited:\n${s.output}`);
  };

  beforeAll(async () => {
    const pgUrl = service('postgres', 'start');
    const redisUrl = service('redis', 'start');
    ownerUrl = await createMigratedDatabase(pgUrl, 'engram_faults');
    const appUrl = new URL(ownerUrl);
    appUrl.username = 'engram_app';
    build = buildApps(['apps/api', 'apps/worker']);
    await embeddings.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const common = {
      DATABASE_URL: appUrl.toString(),
      REDIS_URL: redisUrl,
      EMBEDDINGS_URL: embeddings.url,
      EMBEDDINGS_MODEL: 'fake-embeddings',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      DATABASE_POOL_MAX: '4',
    };
    // Rate limits stay on: while Redis is down they must fail open, not fail the request. The
    // limits are raised above what the outage loops send (they do not back off on
    // Retry-After: thousands of requests a minute against the default 600), so that a 429 never
    // stands in for the 503 being tested.
    api = spawnService(build.dir, 'apps/api/src/main.js', {
      ...common,
      ...NO_SCHEDULES,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: TEST_JWT_SECRET,
      EMBEDDINGS_WAIT_MS: '300',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_IP_PER_MINUTE: '100000',
    });
    // The worker's sweeps every second: catching up is a matter of seconds once Redis is back.
    worker = spawnService(build.dir, 'apps/worker/src/main.js', {
      ...common,
      ...NO_SCHEDULES,
      EMBEDDINGS_BACKFILL_INTERVAL_MS: '1000',
      SLEEP_CYCLE_INTERVAL_MS: '1000',
      WORKER_METRICS_PORT: '0',
    });
    await api.answering(`${base}/health/ready`);
    await waitFor('the worker to be ready', async () => (alive(worker), worker.output.includes('Engram worker ready')), 60_000, 200);

    email = `faults-${Date.now()}@example.test`;
    const reg = await ok('POST', '/v1/auth/register', {}, { email, password: 'correct horse battery', tenant_name: 'faults' });
    owner = { Authorization: `Bearer ${reg.body.token}` };
    const mind = await ok('POST', '/v1/minds', owner, { name: 'faults mind' });
    owner['X-Mind-Id'] = mind.body.id;
    agent = { Authorization: `Bearer ${(await ok('POST', `/v1/minds/${mind.body.id}/keys`, owner, {})).body.key}` };
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await embeddings.close();
    service('all', 'clean');
    build?.remove();
  }, 60_000);

  it('Redis down: every write and read succeeds, nothing is lost, and the background work catches up once Redis is back', async () => {
    // High-importance STM entries consolidate after 2 s in STM (default 30 s), by the sleep cycle.
    await ok('PATCH', '/v1/tenant/settings/lifecycle', owner, { consolidation: { stm_min_seconds: 2 } });
    service('redis', 'stop');
    // The provider is down too, so the API stores memories without their vector: only the
    // worker, through Redis, can embed them later.
    embeddings.reset({ mode: 'down' });

    const answers: Answer[] = [];
    for (let i = 0; i < 12; i++) {
      answers.push(await ok('POST', '/v1/memory', agent, { category: 'fact', key: `outage_${i}`, content: `written while Redis was down, number ${i}`, tags: ['outage'] }));
    }
    const items = Array.from({ length: 8 }, (_, i) => ({ category: 'note', key: `outage_batch_${i}`, content: `batch memory ${i} stored during the Redis outage`, tags: ['outage'] }));
    answers.push(await ok('POST', '/v1/memory/batch', agent, { items }));
    const topics = ['the quarterly budget review moves to Tuesday', 'Maria starts her new job in Lisbon', 'the database migration finished without errors', 'our flight to Tokyo leaves at dawn'];
    const conversation = await ok('POST', '/v1/conversations/outage/messages', agent, { messages: topics.map((content) => ({ speaker: 'Ana', content, importance: 0.9 })) });
    answers.push(conversation);
    expect(conversation.body).toMatchObject({ attended: 4, stm_size: 4 });
    expect(answers.map((a) => a.status)).toEqual([...Array(12).fill(201), 200, 201]);

    const first = answers[0]?.body;
    answers.push(await ok('GET', `/v1/memory/${first.id}`, agent));
    const list = await ok('GET', '/v1/memory?tag=outage&limit=200', agent);
    const search = await ok('GET', '/v1/memory/search?q=outage', agent);
    const recall = await ok('GET', '/v1/memory/recall', agent);
    answers.push(list, search, recall);
    expect(answers.at(-4)?.body).toMatchObject({ key: 'outage_0', embedding_status: 'pending' });
    expect(list.body.items).toHaveLength(20);
    expect(search.body.items.length).toBeGreaterThan(0);
    expect(recall.text).toContain('outage_11');
    // No request waited on Redis: an offline queue on the request path would hold it until Redis
    // came back (here: for ever). 8 s leaves room for a busy CI machine; these take milliseconds.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(8_000);

    // Without Redis the worker gets no jobs: the work waits in the database, not in a lost job.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await count(`key like 'outage%' and embedding_status = 'pending'`)).toBe(20);
    expect(await count(`memory_type = 'episodic'`)).toBe(0);

    // Back, and empty (no persistence): the worker must register its job schedulers again.
    embeddings.reset();
    service('redis', 'start');
    const t0 = Date.now();
    await waitFor(
      'the worker to embed and consolidate what was written during the outage',
      async () => (alive(worker), (await count(`embedding_status = 'pending'`)) === 0 && (await count(`memory_type = 'episodic'`)) === 4),
      REDIS_CATCH_UP_MS,
      250,
    );
    process.stdout.write(`faults: caught up ${Date.now() - t0} ms after Redis came back\n`);
    expect(await count(`key like 'outage%' and embedding_status = 'ready' and embedding_model = 'fake-embeddings'`)).toBe(20);
    expect((await ok('GET', '/v1/conversations/outage/stm', agent)).body.entries).toEqual([]);
    // Every write counted once: 20 keyed memories and 4 episodes, no duplicates.
    expect((await ok('GET', '/v1/memory/stats', agent)).body.total).toBe(24);
    expect(await count('true')).toBe(24);
    alive(api);
  }, 120_000);

  it('PostgreSQL restarted: the API answers 503 in JSON while it is down, and recovers by itself', async () => {
    const pid = api.child.pid;
    const memory = await ok('POST', '/v1/memory', agent, { category: 'fact', key: 'before_restart', content: 'stored before the database restart' });
    const requests: [string, string, Record<string, string>, unknown?][] = [
      ['GET', `/v1/memory/${memory.body.id}`, agent],
      ['POST', '/v1/memory', agent, { category: 'fact', key: 'during_restart', content: 'a write during the outage' }],
      ['GET', '/v1/memory/search?q=database', agent],
      ['GET', '/v1/memory/recall', agent],
      ['GET', '/v1/memory?limit=5', owner],
      ['GET', '/v1/minds', owner],
      ['GET', '/v1/auth/me', owner],
      ['POST', '/v1/auth/login', {}, { email, password: 'correct horse battery' }],
    ];

    service('postgres', 'stop');
    const seen: { path: string; status: number }[] = [];
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      for (const [method, path, headers, body] of requests) {
        const a = await call(method, path, headers, body);
        seen.push({ path, status: a.status });
        // A clear, retryable JSON error: never a 500, never a 401 that would make a client drop its credentials.
        expect({ path, status: a.status, body: a.body, retryAfter: a.retryAfter }).toEqual({
          path,
          status: 503,
          body: expect.objectContaining({ statusCode: 503, error: 'Service Unavailable', message: expect.stringMatching(/database/) }),
          retryAfter: '5',
        });
      }
    }
    const ready = await call('GET', '/health/ready');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: expect.objectContaining({ statusCode: 503, message: 'unhealthy: database down' }) });
    expect((await call('GET', '/health/live')).status).toBe(200);
    expect(seen.length).toBeGreaterThanOrEqual(requests.length * 2);

    service('postgres', 'start');
    const t0 = Date.now();
    await waitFor(
      'every request to succeed again',
      async () => {
        for (const [method, path, headers, body] of requests) {
          const a = await call(method, path, headers, body);
          if (a.status >= 500) {
            expect(a.status).toBe(503);
            return false;
          }
          expect(a.status).toBeLessThan(300);
        }
        return true;
      },
      PG_RECOVERY_MS,
      200,
    );
    process.stdout.write(`faults: ${seen.length} requests during the PostgreSQL outage, all 503\n`);
    process.stdout.write(`faults: the API answered again ${Date.now() - t0} ms after PostgreSQL was back\n`);
    expect((await call('GET', '/health/ready')).status).toBe(200);
    // Recovered by itself: the same processes, never restarted.
    expect(api.child.pid).toBe(pid);
    alive(api);
    alive(worker);
    expect(await count(`key in ('before_restart', 'during_restart')`)).toBe(2);
  }, 120_000);
});

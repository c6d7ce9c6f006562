import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { InProcessScheduler } from '@engram/jobs';
import { ALL_QUEUE_NAMES, JobName, QUEUE_JOBS, QUEUE_NAMES, QueueName } from '@engram/queues';
import { fixtureWriter, seedMemories, setMemoryState } from './support/memory-fixtures';
import { createWorker } from '../apps/worker/src/create-worker';
import { WorkerMetricsServer } from '../apps/worker/src/metrics-server';
import { TEST_REDIS_URL, NO_SCHEDULES } from './support/env';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';
import { QueueDriver } from './support/queue-driver';

const DAY = 86_400_000;
const TOKEN = 'metrics-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k as string] = v as string;
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the series `name` with exactly these labels; undefined when absent. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}

/** Every series of `name`, as `{labels → value}` keyed by the label values joined with `/`. */
function series(samples: Sample[], name: string, keys: string[]): Record<string, number> {
  return Object.fromEntries(samples.filter((s) => s.name === name).map((s) => [keys.map((k) => s.labels[k]).join('/'), s.value]));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Retries `check` until it passes: a Worker's own event may land a moment after QueueEvents reports the job. */
async function eventually(check: () => Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('Prometheus /metrics', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const ids: Record<string, string> = {};

  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);

  beforeAll(async () => {
    t = await startTestApp({ QUEUE_PREFIX: `metrics-api-${randomBytes(4).toString('hex')}` });
    a = await createTenant(t, 'metrics-a');
    b = await createTenant(t, 'metrics-b');
    const write = async (f: TenantFixture, key: string, body: object) => {
      ids[key] = (await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key, ...body }).expect(201)).body.id;
    };
    // Layers follow importance: ≥ 0.8 long_term, ≥ 0.6 short_term, else working; all start hot.
    await write(a, 'long_one', { content: 'Moved to Lisbon in March', importance: 0.9 });
    await write(a, 'long_two', { content: 'Works as a nurse', importance: 0.85 });
    await write(b, 'long_three', { content: 'Has two daughters', importance: 0.95 });
    await write(a, 'short_one', { content: 'Is reading Dune', importance: 0.7 });
    await write(b, 'short_two', { content: 'Plans a trip to Porto', importance: 0.65 });
    await write(b, 'working_one', { content: 'Had coffee at nine', importance: 0.45 });
    // Stored 400 days ago at importance 0.1 and never read: the forgetting sweep soft-forgets it.
    ids['faded'] = (await seedMemories(fixtureWriter(t.app), a, [{ key: 'faded', content: 'Once wore a green scarf', importance: 0.1, storedAt: new Date(Date.now() - 400 * DAY) }]))[0] as string;
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('on the API', () => {
    let samples: Sample[];
    let text: string;

    beforeAll(async () => {
      // Embedded-style forgetting in the API process: counted by the API's own counter.
      expect(await t.app.get(InProcessScheduler).forgetAll()).toBe(1);
      await t.http().get(`/v1/memory/${ids.long_one}`).set(asAgent(a)).expect(200);
      await t.http().get(`/v1/memory/${ids.working_one}`).set(asUser(b)).expect(200);
      // Another tenant's id: the route matched, the memory is not found.
      await t.http().get(`/v1/memory/${ids.long_three}`).set(asAgent(a)).expect(404);
      await t.http().get('/v1/no-such-endpoint').set(asAgent(a)).expect(404);
      await t.http().get(`/v1/memory/${ids.long_one}/history`).expect(401);
      await t.http().get('/metrics').expect(200);
      const res = await t.http().get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      text = res.text;
      samples = parse(text);
    });

    it('times requests by method, route template and status; the raw URL never becomes a label', () => {
      const count = 'engram_http_request_duration_seconds_count';
      expect(value(samples, count, { method: 'POST', route: '/v1/memory', status: '201' })).toBe(6);
      expect(value(samples, count, { method: 'POST', route: '/v1/auth/register', status: '201' })).toBe(2);
      expect(value(samples, count, { method: 'GET', route: '/v1/memory/:id', status: '200' })).toBe(2);
      expect(value(samples, count, { method: 'GET', route: '/v1/memory/:id', status: '404' })).toBe(1);
      expect(value(samples, count, { method: 'GET', route: '/v1/memory/:id/history', status: '401' })).toBe(1);
      expect(value(samples, count, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(value(samples, 'engram_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/memory', status: '201' })).toBeGreaterThan(0);
      // Every request within 10 s: the +Inf bucket holds them all, and so does the 10 s bucket.
      expect(value(samples, 'engram_http_request_duration_seconds_bucket', { le: '10', method: 'POST', route: '/v1/memory', status: '201' })).toBe(6);
      for (const id of Object.values(ids)) expect(text).not.toContain(id);
      expect(text).not.toContain('no-such-endpoint');
      // Scrapes are not requests worth timing (the first scrape above is not counted either).
      expect(samples.filter((s) => s.labels.route === '/metrics')).toEqual([]);
    });

    it('counts memories per layer and tier over every tenant, forgotten ones apart', () => {
      expect(series(samples, 'engram_memories', ['layer', 'tier'])).toEqual({
        'working/hot': 1,
        'working/warm': 0,
        'working/cold': 0,
        'working/archive': 0,
        'short_term/hot': 2,
        'short_term/warm': 0,
        'short_term/cold': 0,
        'short_term/archive': 0,
        'long_term/hot': 3,
        'long_term/warm': 0,
        'long_term/cold': 0,
        'long_term/archive': 0,
      });
      expect(value(samples, 'engram_memories_forgotten')).toBe(1);
      expect(value(samples, 'engram_memories_soft_forgotten_total')).toBe(1);
      expect(value(samples, 'engram_memories_evicted_total')).toBe(0);
    });

    it("includes Node's process metrics under the engram_ prefix", () => {
      expect(value(samples, 'engram_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(value(samples, 'engram_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    });

    it('is public without METRICS_TOKEN, and wants exactly that token when it is set', async () => {
      const guarded = await startTestApp({ METRICS_TOKEN: TOKEN, QUEUE_PREFIX: `metrics-guarded-${randomBytes(4).toString('hex')}` });
      try {
        const f = await createTenant(guarded, 'metrics-guarded');
        const refused = await guarded.http().get('/metrics').expect(401);
        expect(refused.headers['www-authenticate']).toBe('Bearer realm="engram"');
        expect(refused.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringContaining('METRICS_TOKEN') });
        const wrong = await guarded.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}x`).expect(401);
        expect(wrong.headers['www-authenticate']).toBe('Bearer realm="engram", error="invalid_token"');
        // The right token sent beside a wrong one is no credential: which was meant is a guess (helper 31's).
        const twice = await guarded.http().get('/metrics').set('Authorization', [`Bearer ${TOKEN}`, 'Bearer wrong'] as unknown as string).expect(400);
        expect(twice.body.errors).toEqual([{ field: 'Authorization', message: 'must be sent once; the request has 2' }]);
        // A tenant's credentials are not the operator's.
        await guarded.http().get('/metrics').set('Authorization', `Bearer ${f.token}`).expect(401);
        await guarded.http().get('/metrics').set(asAgent(f)).expect(401);
        const ok = await guarded.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
        expect(value(parse(ok.text), 'engram_http_request_duration_seconds_count', { method: 'POST', route: '/v1/minds', status: '201' })).toBe(1);
        // It is not under /v1.
        await guarded.http().get('/v1/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      } finally {
        await guarded.close();
      }
    });
  });

  describe('on the worker', () => {
    let worker: INestApplicationContext;
    let port: number;
    const prefix = `metrics-worker-${randomBytes(4).toString('hex')}`;
    let driver: QueueDriver;

    const scrape = async (authorization: string | null = `Bearer ${TOKEN}`) => {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: authorization ? { Authorization: authorization } : {} });
      return { status: res.status, type: res.headers.get('content-type'), samples: res.status === 200 ? parse(await res.text()) : [] };
    };

    const fanOut = (queue: QueueName, jobId: string) => driver.fanOut(worker, queue, jobId);

    beforeAll(async () => {
      worker = await createWorker(
        loadConfig({
          DATABASE_URL: t.db.appUrl,
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          LOG_LEVEL: 'silent',
          HOST: '127.0.0.1',
          WORKER_METRICS_PORT: String(await freePort()),
          METRICS_TOKEN: TOKEN,
          ...NO_SCHEDULES,
        }),
      );
      port = worker.get(WorkerMetricsServer).port as number;
      driver = await QueueDriver.open(prefix);
    });

    afterAll(async () => {
      await worker?.close();
      await driver?.close();
    });

    it('listens on the configured port and wants the token', async () => {
      expect(port).toBeGreaterThan(0);
      expect((await scrape(null)).status).toBe(401);
      expect((await scrape('Bearer wrong-token-0123456789')).status).toBe(401);
      const res = await fetch(`http://127.0.0.1:${port}/elsewhere`);
      expect(res.status).toBe(404);
    });

    it('times the jobs of a sweep and counts what it forgot and evicted, and the memories it left', async () => {
      // Old and unimportant, like "faded" (which the API already forgot), but not yet forgotten.
      const long = new Date(Date.now() - 400 * DAY);
      const fixtures = fixtureWriter(t.app);
      await seedMemories(fixtures, b, [{ key: 'faded_too', content: 'Once owned a blue bicycle', importance: 0.1, storedAt: long }]);
      // Both stored as long ago as they happened (eviction waits 30 days of storage).
      await setMemoryState(fixtures, a, ids['faded'] as string, { created_at: long });
      // Tiering archives what nobody reads (both faded memories); forgetting then forgets the one
      // not yet forgotten and evicts both.
      const tiered = await fanOut(QueueName.Tiering, 'tiering-1');
      const forgot = await fanOut(QueueName.Forgetting, 'forgetting-1');
      expect(tiered).toHaveLength(2);
      const sum = (key: string) => forgot.reduce((n, r) => n + (r[key] ?? 0), 0);
      expect([sum('soft_forgotten'), sum('evicted')]).toEqual([1, 2]);

      const live = await owner<{ layer: string; tier: string; n: string }>(
        'select layer, tier, count(*) as n from memories where forgotten_at is null group by layer, tier',
      );
      const [gone] = await owner<{ n: string }>('select count(*) as n from memories where forgotten_at is not null');
      await eventually(async () => {
        const { status, type, samples } = await scrape();
        expect(status).toBe(200);
        expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
        // One fan-out and one job per tenant (two tenants), in each queue.
        for (const queue of [QueueName.Tiering, QueueName.Forgetting]) {
          expect([queue, value(samples, 'engram_jobs_completed_total', { queue })]).toEqual([queue, 3]);
          expect([queue, value(samples, 'engram_job_duration_seconds_count', { queue, job: JobName.FanOut })]).toEqual([queue, 1]);
          expect([queue, value(samples, 'engram_job_duration_seconds_count', { queue, job: QUEUE_JOBS[queue as QueueName] })]).toEqual([queue, 2]);
          expect(value(samples, 'engram_job_duration_seconds_sum', { queue, job: QUEUE_JOBS[queue as QueueName] })).toBeGreaterThan(0);
          expect(value(samples, 'engram_jobs_failed_total', { queue })).toBeUndefined();
        }
        expect(value(samples, 'engram_memories_soft_forgotten_total')).toBe(1);
        expect(value(samples, 'engram_memories_evicted_total')).toBe(2);
        // The gauges say what the table holds, over both tenants.
        const memories = Object.entries(series(samples, 'engram_memories', ['layer', 'tier'])).filter(([, n]) => n > 0);
        expect(Object.fromEntries(memories)).toEqual(Object.fromEntries(live.map((r) => [`${r.layer}/${r.tier}`, Number(r.n)])));
        expect(memories.reduce((n, [, v]) => n + v, 0)).toBe(6);
        expect(value(samples, 'engram_memories_forgotten')).toBe(Number(gone?.n));
      });
    });

    it('reports the depth of each queue by state, read from Redis when scraped', async () => {
      const q = driver.queue(QueueName.SystemsConsolidation);
      const later = await q.add(JobName.FanOut, {}, { jobId: 'later', delay: 3_600_000 });
      const { samples } = await scrape();
      const depth = series(samples, 'engram_queue_jobs', ['queue', 'state']);
      expect(depth['systems-consolidation/delayed']).toBe(1);
      expect(depth['systems-consolidation/waiting']).toBe(0);
      expect(depth['forgetting/completed']).toBe(3);
      expect(depth['forgetting/failed']).toBe(0);
      expect(Object.keys(depth)).toHaveLength(ALL_QUEUE_NAMES.length * 5);
      await later.remove();
      expect(value((await scrape()).samples, 'engram_queue_jobs', { queue: 'systems-consolidation', state: 'delayed' })).toBe(0);
    });

    it('counts a failed job, its run time, and the failed job in the queue', async () => {
      const q = driver.queue(QueueName.Tiering);
      const bad = await q.add(JobName.Tiering, { tenantId: 'not-a-tenant', at: new Date().toISOString() }, { jobId: 'bad-tenant', attempts: 1 });
      await expect(bad.waitUntilFinished(driver.queueEvents(QueueName.Tiering), 30_000)).rejects.toThrow(/tenant/);
      await eventually(async () => {
        const { samples } = await scrape();
        expect(value(samples, 'engram_jobs_failed_total', { queue: 'tiering' })).toBe(1);
        expect(value(samples, 'engram_jobs_completed_total', { queue: 'tiering' })).toBe(3);
        expect(value(samples, 'engram_job_duration_seconds_count', { queue: 'tiering', job: JobName.Tiering })).toBe(3);
        expect(value(samples, 'engram_queue_jobs', { queue: 'tiering', state: 'failed' })).toBe(1);
      });
    });
  });
});

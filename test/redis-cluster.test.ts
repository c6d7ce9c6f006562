import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '@engram/config';
import {
  ALL_QUEUE_NAMES,
  EmbeddingDemand,
  QUEUE_NAMES,
  QueueConnections,
  QueueName,
  WEBHOOK_QUEUE,
  createRedisClient,
  embeddingDemandJobId,
  queuePrefix,
} from '@engram/queues';
import { FailOpenRedisStorage } from '../apps/api/src/edge/rate-limit';
import { createWorker } from '../apps/worker/src/create-worker';
import { RedisConnection } from '../apps/worker/src/redis.provider';
import { NO_SCHEDULES } from './support/env';
import { fixtureWriter, seedMemories } from './support/memory-fixtures';
import { QueueDriver } from './support/queue-driver';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

// The queues on a Redis Cluster (issue 17 §4): a private three-master cluster that
// scripts/redis-cluster.sh starts (never the shared Redis), the API and the worker with
// REDIS_CLUSTER=true and the default QUEUE_PREFIX, and one real job of every queue: each sweep's
// fan-out and its tenant job, an on-demand embedding job, a webhook delivery and its scheduled
// sweep, the rate limit counts and the queue dashboard. Without the hash tags BullMQ's scripts
// fail with CROSSSLOT; without Cluster clients every command to another master fails with MOVED.

const SCRIPT = resolve(__dirname, '../scripts/redis-cluster.sh');
const DAY = 86_400_000;
const OPERATOR_TOKEN = 'operator-token-for-the-cluster-test-0123456789';
const DELIVERY = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_BACKOFF_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('queues on a Redis Cluster (three masters)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-redis-cluster-'));
  const script = (action: string): string => execFileSync(SCRIPT, [action], { env: { ...process.env, REDIS_CLUSTER_DIR: dir }, encoding: 'utf8' }).trim();
  const received: { headers: Record<string, string>; body: string }[] = [];
  let receiver: Server;
  let receiverUrl: string;
  let redisUrl: string;
  let redis: { REDIS_URL: string; REDIS_CLUSTER: true };
  let t: TestApp;
  let worker: INestApplicationContext;
  let driver: QueueDriver;
  let f: TenantFixture;
  let admin: Cluster;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    redisUrl = script('start');
    redis = { REDIS_URL: redisUrl, REDIS_CLUSTER: true };
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    // The default QUEUE_PREFIX: the cluster is this test's own, and the slots are then fixed.
    t = await startTestApp({ REDIS_URL: redisUrl, REDIS_CLUSTER: 'true', ENGRAM_OPERATOR_TOKEN: OPERATOR_TOKEN, RATE_LIMIT_PER_MINUTE: '10000', ...DELIVERY });
    f = await createTenant(t, 'cluster');
    const now = Date.now();
    const seeded = await seedMemories(fixtureWriter(t.app), f, [
      { key: 'faded', content: 'A minor detail from long ago', importance: 0.1, storedAt: new Date(now - 400 * DAY) },
      { key: 'fresh', content: 'Started a new job today', importance: 0.9 },
    ]);
    [ids.faded, ids.fresh] = seeded as [string, string];
    worker = await createWorker(
      loadConfig(
        {
          DATABASE_URL: t.db.appUrl,
          REDIS_URL: redisUrl,
          REDIS_CLUSTER: 'true',
          LOG_LEVEL: 'silent',
          WORKER_METRICS_PORT: '0',
          ...NO_SCHEDULES,
          ...DELIVERY,
          // One scheduler on the cluster: the webhook sweep.
          WEBHOOK_DISPATCH_INTERVAL_MS: '300',
          WEBHOOK_LOST_AFTER_MS: '500',
        },
        { issuesTokens: false },
      ),
    );
    driver = await QueueDriver.open('engram', redis);
    admin = createRedisClient(redis) as Cluster;
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await driver?.close();
    await t?.close();
    await admin?.quit().catch(() => admin.disconnect());
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
    script('clean');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a cluster of three masters that the worker reaches through an ioredis Cluster', async () => {
    expect(admin.nodes('master')).toHaveLength(3);
    expect(worker.get(RedisConnection).client).toBeInstanceOf(Cluster);
    expect(await worker.get(RedisConnection).client.ping()).toBe('PONG');
  });

  it('runs the fan-out and the tenant job of every sweep queue, with the results the sweeps compute', async () => {
    const reports: Record<string, Record<string, number>[]> = {};
    for (const queue of QUEUE_NAMES) reports[queue] = await driver.fanOut(worker, queue, `${queue}-1`);
    // One tenant, one job of each queue, each finished with its report.
    for (const queue of QUEUE_NAMES) expect(reports[queue]).toEqual([expect.any(Object)]);
    expect(reports[QueueName.Tiering]).toEqual([{ retiered: 1, compacted: 1, expanded: 0, archived: 1, unarchived: 0, indexed: 0 }]);
    // Tiering archived "faded" (400 days, unimportant); forgetting then evicted it.
    expect(reports[QueueName.Forgetting]?.[0]).toMatchObject({ evicted: 1 });
    const left = await ownerQuery(t.db)<{ key: string }>('select key from memories order by key');
    expect(left.map((m) => m.key)).toEqual(['fresh']);
  });

  it('keeps every key of a queue in the slot of its hash tag, and spreads the queues over the masters', async () => {
    const owners = new Set<string>();
    for (const name of QUEUE_NAMES) {
      const tag = queuePrefix({ QUEUE_PREFIX: 'engram', REDIS_CLUSTER: true }, name);
      expect(tag).toBe(`{engram:${name}}`);
      const slot = await admin.cluster('KEYSLOT', tag);
      const holders: string[] = [];
      for (const node of admin.nodes('master')) {
        const keys = await node.keys(`${tag}:*`);
        if (keys.length > 0) holders.push(`${node.options.host}:${node.options.port}`);
        for (const key of keys) expect(await admin.cluster('KEYSLOT', key)).toBe(slot);
      }
      // The fan-out ran: the queue has keys, all on one master.
      expect(holders).toHaveLength(1);
      owners.add(holders[0] as string);
      // Nothing under the single-node names: every key is tagged.
      for (const node of admin.nodes('master')) expect(await node.keys(`engram:${name}:*`)).toEqual([]);
    }
    // Five tags over three masters: fixed slots (the default prefix), on at least two masters.
    expect(owners.size).toBeGreaterThanOrEqual(2);
  });

  it('runs an on-demand embedding job enqueued by the API producer', async () => {
    const at = new Date();
    const demand = new EmbeddingDemand(t.config);
    try {
      expect(demand.enabled).toBe(true);
      await demand.pending(f.tenantId, at);
      const job = await waitFor('the demand job', () => Job.fromId(driver.queue(QueueName.Embedding), embeddingDemandJobId(f.tenantId, at)));
      expect(await job.waitUntilFinished(driver.queueEvents(QueueName.Embedding), 30_000)).toEqual(expect.any(Object));
    } finally {
      await demand.onApplicationShutdown();
    }
  });

  it('delivers a webhook: enqueued by the API after commit, sent by the worker, signed', async () => {
    const hook = await t.http().post('/v1/webhooks').set('Authorization', `Bearer ${f.token}`).send({ url: receiverUrl, events: ['memory.created'] }).expect(201);
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'project', key: 'launch', content: 'We launch in March' }).expect(201);
    const got = await waitFor('memory.created at the receiver', () => received.find((r) => JSON.parse(r.body).data?.memory_id === created.body.id));
    const payload = new Webhook(hook.body.secret).verify(got.body, got.headers) as { type: string };
    expect(payload.type).toBe('memory.created');
    const listed = await t.http().get(`/v1/webhooks/${hook.body.id}/deliveries`).set('Authorization', `Bearer ${f.token}`).expect(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ event_type: 'memory.created', status: 'succeeded', attempts: 1 })]);
    // The worker's scheduled sweep of lost deliveries lives on the cluster too.
    const connections = new QueueConnections(redis);
    const queue = new Queue(WEBHOOK_QUEUE, { connection: connections.connection(), prefix: queuePrefix({ QUEUE_PREFIX: 'engram', REDIS_CLUSTER: true }, WEBHOOK_QUEUE) });
    try {
      expect(await queue.getJobScheduler('webhooks-sweep')).toMatchObject({ every: 300 });
      expect(await queue.getJob(listed.body.items[0].id)).toBeDefined();
    } finally {
      await queue.close();
      await connections.close();
    }
  });

  it('counts rate limits on the cluster: the API counted its requests, and a bucket over its limit is blocked', async () => {
    // The API's own counts (every request above went through the limiter).
    const counted = (await Promise.all(admin.nodes('master').map((n) => n.keys('engram:ratelimit:*')))).flat();
    expect(counted.some((k) => k.includes(`key:${f.mindKeyId}`))).toBe(true);
    const storage = new FailOpenRedisStorage({ ...redis, QUEUE_PREFIX: 'engram' });
    try {
      // Until its Cluster client has learnt the slots the storage fails open (no offline queue:
      // a request never waits on Redis); then it counts.
      await waitFor('the limiter to reach the cluster', async () => (await storage.increment('default:warm-up', 60_000, 100, 60_000, 'default')).totalHits > 0);
      const hits = [];
      for (let i = 0; i < 4; i += 1) hits.push(await storage.increment('default:probe', 60_000, 3, 60_000, 'default'));
      // Failing open would answer totalHits 0: these are real counts.
      expect(hits.map((h) => [h.totalHits, h.isBlocked])).toEqual([[1, false], [2, false], [3, false], [4, true]]);
    } finally {
      storage.onModuleDestroy();
    }
  });

  it('shows every queue in the admin dashboard', async () => {
    const res = await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN}`).expect(200);
    const queues = res.body.queues as { name: string; counts: Record<string, number> }[];
    expect(queues.map((q) => q.name).sort()).toEqual([...ALL_QUEUE_NAMES].sort());
    expect(queues.find((q) => q.name === QueueName.Tiering)?.counts.completed).toBe(2);
  });
});

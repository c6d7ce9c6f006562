import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '@engram/config';
import { ForgettingJob } from '@engram/jobs';
import { WEBHOOK_QUEUE } from '@engram/queues';
import { createApp } from '../apps/api/src/create-app';
import { createWorker } from '../apps/worker/src/create-worker';
import { NO_SCHEDULES, TEST_REDIS_URL } from './support/env';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

/** One request as the receiver got it. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 (port 0, then the same port when it comes back): records what
 * it gets, answers 500 to the next `failNext` requests, then 204.
 */
class Receiver {
  readonly got: Received[] = [];
  failNext = 0;
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.got.push({ headers: req.headers, body });
        if (this.failNext > 0) {
          this.failNext -= 1;
          res.writeHead(500).end('receiver is having a bad day');
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Down: connections are refused until {@link start} again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** The bodies received of one event type, parsed. */
  events(type: string): { type: string; timestamp: string; data: Record<string, unknown> }[] {
    return this.got.map((r) => JSON.parse(r.body)).filter((e: { type: string }) => e.type === type);
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Small backoff for the tests: attempts 100, 200, 400, 800 ms apart, five in all.
const DELIVERY = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_MAX_ATTEMPTS: '5',
  WEBHOOK_BACKOFF_MS: '100',
  WEBHOOK_TIMEOUT_MS: '2000',
};

type Http = () => ReturnType<typeof request>;

/** Registers an endpoint as the tenant's owner. @returns its id and secret */
async function register(http: Http, f: { token: string }, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await http().post('/v1/webhooks').set('Authorization', `Bearer ${f.token}`).send({ url, events }).expect(201);
  expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  return { id: res.body.id, secret: res.body.secret };
}

function deliveries(http: Http, f: { token: string }, endpointId: string, query = '') {
  return http().get(`/v1/webhooks/${endpointId}/deliveries${query}`).set('Authorization', `Bearer ${f.token}`).expect(200);
}

describe('webhooks through BullMQ (API + worker)', () => {
  const prefix = `webhooks-test-${process.pid}`;
  let t: TestApp;
  let worker: INestApplicationContext;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, ...DELIVERY });
    worker = await createWorker(
      loadConfig(
        {
          DATABASE_URL: t.db.appUrl,
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          LOG_LEVEL: 'silent',
          WORKER_METRICS_PORT: '0',
          ...NO_SCHEDULES,
          ...DELIVERY,
          // The sweep that finds deliveries whose enqueue was lost: often, and soon, for the test.
          WEBHOOK_DISPATCH_INTERVAL_MS: '300',
          WEBHOOK_LOST_AFTER_MS: '500',
        },
        { issuesTokens: false },
      ),
    );
  });

  afterAll(async () => {
    await worker?.close();
    const q = new Queue(WEBHOOK_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    await t?.close();
    await receiver.stop();
  });

  it('a memory write reaches the receiver as a signed memory.created that the Standard Webhooks library verifies', async () => {
    const f = await createTenant(t, 'signed');
    const hook = await register(t.http, f, receiver.url, ['memory.created', 'memory.updated', 'memory.deleted']);
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'project', key: 'launch_date', content: 'We launch on 2027-03-01', tags: ['launch'] }).expect(201);

    const got = await waitFor('memory.created', () => receiver.got.find((r) => JSON.parse(r.body).data?.memory_id === created.body.id));
    const payload = new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload.type).toBe('memory.created');
    expect(payload.data).toMatchObject({ mind_id: f.mindId, memory_id: created.body.id, category: 'project', key: 'launch_date', content: 'We launch on 2027-03-01', source: 'agent', version: 1 });
    expect(Number.isNaN(Date.parse(payload.timestamp))).toBe(false);
    // Another secret does not verify it: the signature is real.
    const other = await register(t.http, f, receiver.url, ['memory.evicted']);
    expect(() => new Webhook(other.secret).verify(got.body, got.headers as Record<string, string>)).toThrow();

    // New content by PUT is a statement made now: its date changes with it.
    await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ content: 'We launch on 2027-04-01' }).expect(200);
    const updated = await waitFor('memory.updated', () => receiver.events('memory.updated').find((e) => e.data.memory_id === created.body.id));
    expect(updated.data).toMatchObject({ content: 'We launch on 2027-04-01', version: 2, changed: ['content', 'occurred_at'] });
    // A change of importance alone names it (it named nothing: a tester's find).
    await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ importance: 0.05 }).expect(200);
    const reweighed = await waitFor('memory.updated v3', () => receiver.events('memory.updated').find((e) => e.data.memory_id === created.body.id && e.data.version === 3));
    expect(reweighed.data).toMatchObject({ importance_score: 0.05, changed: ['importance_score'] });

    const listed = await waitFor('all three delivered', async () => {
      const items = (await deliveries(t.http, f, hook.id)).body.items as { event_type: string; status: string; attempts: number }[];
      return items.length === 3 && items.every((d) => d.status === 'succeeded') ? items : undefined;
    });
    expect(listed.map((d) => [d.event_type, d.attempts])).toEqual([['memory.updated', 1], ['memory.updated', 1], ['memory.created', 1]]);

    await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(204);
    const deleted = await waitFor('memory.deleted', () => receiver.events('memory.deleted').find((e) => e.data.memory_id === created.body.id));
    expect(deleted.data).toMatchObject({ mind_id: f.mindId, category: 'project', key: 'launch_date' });
    expect(deleted.data.content).toBeUndefined();
    // The deliveries that carried its content went with it (docs/webhooks.md, "Deleting").
    const after = await waitFor('the deletion delivered', async () => {
      const items = (await deliveries(t.http, f, hook.id)).body.items as { event_type: string; status: string; attempts: number }[];
      return items.every((d) => d.status === 'succeeded') ? items : undefined;
    });
    expect(after.map((d) => [d.event_type, d.attempts])).toEqual([['memory.deleted', 1]]);
  });

  it('a receiver answering 500 gets the event on a later attempt, every attempt with the same webhook-id', async () => {
    const f = await createTenant(t, 'flaky');
    const hook = await register(t.http, f, receiver.url, ['memory.created']);
    receiver.failNext = 2;
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'office_city', content: 'The office is in Porto' }).expect(201);
    const mine = () => receiver.got.filter((r) => JSON.parse(r.body).data?.memory_id === created.body.id);
    await waitFor('three attempts', () => mine().length >= 3);
    const ids = new Set(mine().map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    // The worker records the third attempt's answer after the receiver has it: wait for the record.
    const delivery = await waitFor('the delivery recorded as succeeded', async () => {
      const [d] = (await deliveries(t.http, f, hook.id)).body.items;
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(delivery).toMatchObject({ id: [...ids][0], status: 'succeeded', attempts: 3, last_status_code: 204 });
  });

  // A tester's find: a delivery still retrying after a purge sent the purged memory's content.
  it('purging a mind takes the webhook deliveries about its memories with it: a retry never sends purged content', async () => {
    const f = await createTenant(t, 'purged');
    const down = await new Receiver().start();
    const url = down.url;
    await down.stop();
    const hook = await register(t.http, f, url, ['memory.created']);
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'identity', key: 'user_ssn', content: 'SECRET-SSN 123-45-6789' }).expect(201);
    await waitFor('the delivery recorded', async () => ((await deliveries(t.http, f, hook.id)).body.items.length > 0 ? true : undefined));
    const purge = await t.http().delete(`/v1/minds/${f.mindId}/memories`).set('Authorization', `Bearer ${f.token}`).expect(200);
    expect(purge.body).toMatchObject({ memories: 1, webhook_deliveries: 1 });
    expect((await deliveries(t.http, f, hook.id)).body.items).toEqual([]);
    expect(await ownerQuery(t.db)<{ n: number }>(`select count(*)::int as n from webhook_deliveries where payload::text like '%SECRET-SSN%'`)).toEqual([{ n: 0 }]);
    await down.start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(down.got).toEqual([]);
    await down.stop();
  });

  // A tester's find (after mem0's reports of deleted memories that lived on): deleting one memory
  // left its created/updated deliveries, content and all, retrying for hours and listed.
  it('deleting a memory takes the deliveries about it with it: only its memory.deleted is left, other memories keep theirs', async () => {
    const f = await createTenant(t, 'deleted-one');
    const down = await new Receiver().start();
    const url = down.url;
    await down.stop();
    const hook = await register(t.http, f, url, ['memory.created', 'memory.updated', 'memory.deleted']);
    const secret = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'identity', key: 'user_passport', content: 'PASSPORT X1234567' }).expect(201);
    await t.http().put(`/v1/memory/${secret.body.id}`).set(asAgent(f)).send({ content: 'PASSPORT Y7654321' }).expect(200);
    const kept = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'preference', key: 'tea', content: 'Likes green tea' }).expect(201);
    await waitFor('three deliveries recorded', async () => ((await deliveries(t.http, f, hook.id)).body.items.length === 3 ? true : undefined));
    await t.http().delete(`/v1/memory/${secret.body.id}`).set(asAgent(f)).expect(204);
    const left = (await deliveries(t.http, f, hook.id)).body.items as { event_type: string }[];
    expect(left.map((d) => d.event_type).sort()).toEqual(['memory.created', 'memory.deleted']);
    expect(await ownerQuery(t.db)<{ n: number }>(`select count(*)::int as n from webhook_deliveries where payload::text like '%PASSPORT%'`)).toEqual([{ n: 0 }]);
    const about = await ownerQuery(t.db)<{ type: string; memory: string }>(
      `select event_type as type, payload -> 'data' ->> 'memory_id' as memory from webhook_deliveries where endpoint_id = $1 order by event_type`,
      [hook.id],
    );
    expect(about).toEqual([
      { type: 'memory.created', memory: kept.body.id },
      { type: 'memory.deleted', memory: secret.body.id },
    ]);
  });

  it('a receiver that is down and then back gets the event: nothing lost, any repeat with the same webhook-id', async () => {
    const f = await createTenant(t, 'down');
    const hook = await register(t.http, f, receiver.url, ['memory.created']);
    await receiver.stop();
    try {
      await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'team_size', content: 'The team has 12 people' }).expect(201);
      const failed = await waitFor('a refused attempt', async () => (await deliveries(t.http, f, hook.id)).body.items.find((d: { attempts: number }) => d.attempts >= 1));
      expect(failed).toMatchObject({ status: 'pending', last_status_code: null });
      expect(failed.last_error).toMatch(/ECONNREFUSED/);
    } finally {
      await receiver.start();
    }
    const [done] = await waitFor('the delivery to succeed', async () => {
      const items = (await deliveries(t.http, f, hook.id)).body.items;
      return items[0]?.status === 'succeeded' ? items : undefined;
    });
    const arrived = receiver.got.filter((r) => r.headers['webhook-id'] === done.id);
    expect(arrived.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(arrived[0]?.body ?? '{}').data).toMatchObject({ key: 'team_size' });
  });

  it('lists failed deliveries (attempts, last error) and sends one again on retry', async () => {
    const f = await createTenant(t, 'failing');
    const hook = await register(t.http, f, receiver.url, ['memory.created']);
    receiver.failNext = 1000;
    try {
      await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'never_arrives', content: 'This one fails every attempt' }).expect(201);
      const [failed] = await waitFor('the delivery to fail', async () => {
        const items = (await deliveries(t.http, f, hook.id, '?status=failed')).body.items;
        return items.length > 0 ? items : undefined;
      });
      expect(failed).toMatchObject({ status: 'failed', attempts: 5, last_status_code: 500, next_attempt_at: null });
      expect(failed.last_error).toContain('HTTP 500');
      expect((await deliveries(t.http, f, hook.id, '?status=succeeded')).body.items).toEqual([]);
      // The operator sees it too: the job failed in the webhooks queue.
      const q = new Queue(WEBHOOK_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix });
      try {
        expect(await (await q.getJob(failed.id))?.getState()).toBe('failed');
      } finally {
        await q.close();
      }

      receiver.failNext = 0;
      const retried = await t.http().post(`/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`).set('Authorization', `Bearer ${f.token}`).expect(200);
      expect(retried.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 });
      await waitFor('the retried delivery to succeed', async () => (await deliveries(t.http, f, hook.id, '?status=succeeded')).body.items.length === 1);
    } finally {
      receiver.failNext = 0;
    }
  });

  it('a delivery whose enqueue was lost (a crash after commit) is found by the sweep and sent', async () => {
    const f = await createTenant(t, 'lost');
    const hook = await register(t.http, f, receiver.url, ['memory.created']);
    const id = '01900000-0000-7000-8000-00000000abcd';
    const payload = { type: 'memory.created', timestamp: new Date().toISOString(), data: { mind_id: f.mindId, memory_id: id, category: 'note', key: 'lost_event' } };
    // What the outbox leaves when the process dies between commit and enqueue: a pending row, no job.
    await ownerQuery(t.db)(`insert into webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload) values ($1, $2, $3, 'memory.created', $4)`, [f.tenantId, id, hook.id, JSON.stringify(payload)]);
    const got = await waitFor('the lost delivery', () => receiver.got.find((r) => r.headers['webhook-id'] === id));
    expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(payload);
  });

  it('announces what the forgetting sweep does: memory.expired and memory.soft_forgotten', async () => {
    const f = await createTenant(t, 'sweeps');
    await register(t.http, f, receiver.url, ['memory.expired', 'memory.soft_forgotten']);
    const soon = new Date(Date.now() + 1000).toISOString();
    const expiring = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'context', key: 'todays_focus', content: 'Focus on the release notes', expires_at: soon }).expect(201);
    const fading = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'passing_remark', content: 'ok', importance: 0.05, priority: 'low' }).expect(201);
    // A year on, the unimportant note's retention is far below the soft threshold.
    await worker.get(ForgettingJob).run(f.tenantId, new Date(Date.now() + 365 * 86_400_000));
    const expired = await waitFor('memory.expired', () => receiver.events('memory.expired').find((e) => e.data.memory_id === expiring.body.id));
    expect(expired.data).toMatchObject({ mind_id: f.mindId, key: 'todays_focus', expires_at: soon });
    const forgotten = await waitFor('memory.soft_forgotten', () => receiver.events('memory.soft_forgotten').find((e) => e.data.memory_id === fading.body.id));
    expect(forgotten.data).toMatchObject({ key: 'passing_remark', category: 'note' });
    // Announced once: a second sweep sends nothing new.
    const ofThisMind = () => receiver.got.filter((r) => JSON.parse(r.body).data?.mind_id === f.mindId).length;
    const before = ofThisMind();
    await worker.get(ForgettingJob).run(f.tenantId, new Date(Date.now() + 366 * 86_400_000));
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.events('memory.expired').filter((e) => e.data.memory_id === expiring.body.id)).toHaveLength(1);
    expect(ofThisMind()).toBe(before);
  });

  it("another tenant's webhook and delivery ids answer 404; members, Mind Keys and bad input are refused", async () => {
    const a = await createTenant(t, 'owner-a');
    const b = await createTenant(t, 'owner-b');
    const hook = await register(t.http, a, receiver.url, ['memory.created']);
    await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'note', key: 'a_secret', content: 'only for tenant a' }).expect(201);
    const [delivery] = await waitFor('a delivery', async () => {
      const items = (await deliveries(t.http, a, hook.id)).body.items;
      return items.length > 0 ? items : undefined;
    });
    const asB = { Authorization: `Bearer ${b.token}` };
    await t.http().get(`/v1/webhooks/${hook.id}`).set(asB).expect(404);
    await t.http().patch(`/v1/webhooks/${hook.id}`).set(asB).send({ enabled: false }).expect(404);
    await t.http().get(`/v1/webhooks/${hook.id}/deliveries`).set(asB).expect(404);
    await t.http().post(`/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`).set(asB).expect(404);
    await t.http().delete(`/v1/webhooks/${hook.id}`).set(asB).expect(404);
    expect((await t.http().get('/v1/webhooks').set(asB).expect(200)).body).toEqual({ items: [], next_cursor: null });
    // B's own endpoint does not reach A's delivery either.
    const bHook = await register(t.http, b, receiver.url, ['memory.created']);
    await t.http().post(`/v1/webhooks/${bHook.id}/deliveries/${delivery.id}/retry`).set(asB).expect(404);
    // A still has it, unchanged.
    expect((await t.http().get(`/v1/webhooks/${hook.id}`).set('Authorization', `Bearer ${a.token}`).expect(200)).body).toMatchObject({ id: hook.id, enabled: true });

    await t.http().get('/v1/webhooks').set(asAgent(a)).expect(403);
    const bad = await t.http().post('/v1/webhooks').set('Authorization', `Bearer ${a.token}`).send({ url: receiver.url, events: ['memory.teleported'] }).expect(400);
    expect(bad.body.errors[0].field).toMatch(/^events/);
    const ftp = await t.http().post('/v1/webhooks').set('Authorization', `Bearer ${a.token}`).send({ url: 'ftp://example.com/x', events: ['memory.created'] }).expect(400);
    expect(ftp.body.message).toMatch(/^url: /);
  });

  it('paginates endpoints like /v1/minds, and shows the secret on creation only', async () => {
    const f = await createTenant(t, 'pages');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await register(t.http, f, `${receiver.url}?n=${i}`, ['memory.created'])).id);
    const auth = { Authorization: `Bearer ${f.token}` };
    const first = await t.http().get('/v1/webhooks?limit=2').set(auth).expect(200);
    expect(first.body.items.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const second = await t.http().get(`/v1/webhooks?limit=2&cursor=${first.body.next_cursor}`).set(auth).expect(200);
    expect(second.body).toMatchObject({ items: [{ id: ids[0] }], next_cursor: null });
    expect([...first.body.items, ...second.body.items].some((w: object) => 'secret' in w)).toBe(false);
  });
});

describe('webhook addresses (SSRF)', () => {
  let t: TestApp;
  let f: TenantFixture;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    // WEBHOOK_ALLOW_PRIVATE_URLS left at its default (false); deliveries in-process (no Redis).
    t = await startTestApp({ WEBHOOK_MAX_ATTEMPTS: '1' });
    f = await createTenant(t, 'ssrf');
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook'],
    ['loopback by name', 'http://localhost/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['private', 'https://10.1.2.3/hook'],
    ['private 192.168', 'http://192.168.1.10/hook'],
    ['link-local (cloud metadata)', 'http://169.254.169.254/latest/meta-data'],
    ['unspecified', 'http://0.0.0.0/hook'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/hook'],
  ])('refuses a %s URL with 400 naming url', async (_what, url) => {
    const res = await t.http().post('/v1/webhooks').set('Authorization', `Bearer ${f.token}`).send({ url, events: ['memory.created'] }).expect(400);
    expect(res.body.message).toMatch(/^url: /);
    expect(res.body.errors).toEqual([{ field: 'url', message: expect.stringMatching(/private, loopback/) }]);
  });

  it('refuses a private address at delivery time too, whatever was stored', async () => {
    // An endpoint stored while the setting was on (or by hand): the delivery checks again.
    const rows = await ownerQuery(t.db)<{ id: string }>(
      `insert into webhook_endpoints (tenant_id, id, url, event_types, secret) values ($1, '01900000-0000-7000-8000-0000000000ee', $2, '{memory.created}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') returning id`,
      [f.tenantId, receiver.url],
    );
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'internal_probe', content: 'should not leave' }).expect(201);
    const [delivery] = await waitFor('the refused attempt', async () => {
      const items = (await deliveries(t.http, f, rows[0]?.id as string)).body.items;
      return items[0]?.status === 'failed' ? items : undefined;
    });
    expect(delivery.last_error).toMatch(/refused: 127\.0\.0\.1 is a private, loopback/);
    expect(receiver.got).toEqual([]);
  });
});

describe('webhooks in embedded mode (PGlite, in-process delivery)', () => {
  let dir: string;
  let app: INestApplication;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    dir = mkdtempSync(join(tmpdir(), 'engram-webhooks-'));
    app = await createApp(loadConfig({ ENGRAM_DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...NO_SCHEDULES, ...DELIVERY, WEBHOOK_DISPATCH_INTERVAL_MS: '100' }));
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
    await receiver.stop();
  });

  it('delivers a signed event in-process, retrying after a 500 with the same webhook-id', async () => {
    const http = () => request(app.getHttpServer());
    const reg = await http().post('/v1/auth/register').send({ email: 'hooks@example.test', password: 'embedded secret', tenant_name: 'Hooks' }).expect(201);
    const owner = { token: reg.body.token as string };
    const mind = await http().post('/v1/minds').set('Authorization', `Bearer ${owner.token}`).send({ name: 'Hooked' }).expect(201);
    const hook = await register(http, owner, receiver.url, ['memory.created']);
    receiver.failNext = 1;
    const created = await http().post('/v1/memory').set({ Authorization: `Bearer ${owner.token}`, 'X-Mind-Id': mind.body.id }).send({ category: 'identity', key: 'user_name', content: 'Ada' }).expect(201);
    await waitFor('two attempts', () => receiver.got.length >= 2);
    const [first, second] = receiver.got as [Received, Received];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const payload = new Webhook(hook.secret).verify(second.body, second.headers as Record<string, string>) as { data: Record<string, unknown> };
    expect(payload.data).toMatchObject({ memory_id: created.body.id, key: 'user_name', content: 'Ada', source: 'user', verified: true });
    const done = await waitFor('succeeded', async () => {
      const items = (await deliveries(http, owner, hook.id)).body.items;
      return items[0]?.status === 'succeeded' ? items[0] : undefined;
    });
    expect(done).toMatchObject({ attempts: 2, last_status_code: 204 });
  });
});

import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import { loadConfig } from '@engram/config';
import { QUEUE_NAMES, QueueName } from '@engram/queues';
import { createWorker } from '../apps/worker/src/create-worker';
import { NO_SCHEDULES, TEST_REDIS_URL } from './support/env';
import { FakeEmbeddingsServer } from './support/fake-embeddings-server';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

// The embedding queue runs on demand (issue "background work" §1): a write that could not wait for
// its vector asks a worker to embed it, with no scheduled sweep at all.
describe('embedding on demand (API with REDIS_URL, worker)', () => {
  const prefix = `engram-demand-${randomBytes(4).toString('hex')}`;
  let fake: FakeEmbeddingsServer;
  let t: TestApp;
  let f: TenantFixture;
  let worker: INestApplicationContext;
  const embeddings = () => ({ EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed-1', EMBEDDINGS_TIMEOUT_MS: '5000' });

  beforeAll(async () => {
    fake = await new FakeEmbeddingsServer().start();
    // Slower than a write waits (EMBEDDINGS_WAIT_MS 50), quicker than the worker's timeout.
    fake.reset({ mode: 'slow', slowMs: 400 });
    t = await startTestApp({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, EMBEDDINGS_WAIT_MS: '50', ...embeddings() });
    f = await createTenant(t, 'demand');
    worker = await createWorker(
      loadConfig({
        DATABASE_URL: t.db.appUrl,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        WORKER_METRICS_PORT: '0',
        // No scheduled embedding sweep either: only the demand can get the memory embedded.
        ...NO_SCHEDULES,
        ...embeddings(),
      }),
    );
  });

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    for (const name of QUEUE_NAMES) {
      const q = new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix });
      await q.obliterate({ force: true });
      await q.close();
    }
    fake?.close();
  });

  it('a memory stored without its vector is embedded by a worker within seconds, by one job', async () => {
    const res = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'office', content: 'The Berlin office is on Torstrasse' }).expect(201);
    expect(res.body.embedding_status).toBe('pending');

    const owner = ownerQuery(t.db);
    const deadline = Date.now() + 15_000;
    let status = 'pending';
    while (status !== 'ready' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await owner<{ embedding_status: string }>(`select embedding_status from memories where id = $1`, [res.body.id]))[0]!.embedding_status;
    }
    expect(status).toBe('ready');

    const q = new Queue(QueueName.Embedding, { connection: { url: TEST_REDIS_URL }, prefix });
    const done = await q.getJobs(['completed']);
    await q.close();
    expect(done.map((j) => j.id)).toEqual([expect.stringMatching(new RegExp(`^embedding\\.${f.tenantId}\\.demand-\\d+$`))]);
    expect(done[0]!.returnvalue).toEqual({ embedded: 1 });
  });
});

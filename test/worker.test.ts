import { loadConfig } from '@engram/config';
import { createWorker, WorkerConfigError } from '../apps/worker/src/create-worker';
import { RedisConnection } from '../apps/worker/src/redis.provider';
import { DATABASE } from '@engram/db';
import { sql } from 'kysely';
import { TEST_REDIS_URL } from './support/env';
import { createTestDatabase } from './support/test-db';

describe('worker app', () => {
  it('boots, reaches Postgres as engram_app and Redis, and shuts down', async () => {
    const db = await createTestDatabase();
    const worker = await createWorker(loadConfig({ DATABASE_URL: db.appUrl, REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'silent', QUEUE_PREFIX: `worker-test-${process.pid}`, WORKER_METRICS_PORT: '0' }));
    try {
      expect(await worker.get(RedisConnection).client.ping()).toBe('PONG');
      const { rows } = await sql<{ role: string }>`select current_user as role`.execute(worker.get(DATABASE));
      expect(rows[0]?.role).toBe('engram_app');
    } finally {
      await worker.close();
      await db.drop();
    }
  });

  it('refuses to start without DATABASE_URL and REDIS_URL, saying why', async () => {
    await expect(createWorker(loadConfig({ LOG_LEVEL: 'silent' }))).rejects.toThrow(WorkerConfigError);
    await expect(createWorker(loadConfig({ LOG_LEVEL: 'silent' }))).rejects.toThrow(/DATABASE_URL and REDIS_URL/);
  });
});

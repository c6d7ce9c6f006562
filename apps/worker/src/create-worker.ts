import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from '@engram/config';
import { RedisConnection } from './redis.provider';
import { WorkerModule } from './worker.module';

/** Thrown when the worker is started without what it needs. */
export class WorkerConfigError extends Error {}

/**
 * Boots the worker: a Nest application context (no HTTP) connected to Postgres (as the app
 * role, RLS enforced) and Redis.
 *
 * @throws WorkerConfigError without DATABASE_URL or REDIS_URL: in embedded mode the API runs
 * background work in-process and no worker is needed.
 */
export async function createWorker(config: AppConfig): Promise<INestApplicationContext> {
  if (!config.DATABASE_URL || !config.REDIS_URL) {
    throw new WorkerConfigError(
      'the worker needs DATABASE_URL and REDIS_URL; without them run only the API (embedded mode runs background work in-process)',
    );
  }
  const context = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { bufferLogs: true, abortOnError: false, autoFlushLogs: false });
  context.useLogger(context.get(Logger));
  context.flushLogs();
  context.enableShutdownHooks();
  await context.get(RedisConnection).connect();
  return context;
}

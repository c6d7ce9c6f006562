import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { QUEUE_NAMES } from '@engram/queues';

/**
 * The API's handles on the worker's queues, for the admin dashboard to read and manage (it adds
 * no workers: the API never runs queued jobs). Empty without `REDIS_URL` (embedded mode: the
 * work runs in-process and there are no queues).
 *
 * The queues share one Redis connection that this provider owns: BullMQ does not close a
 * connection it was handed, so the queues close first (`beforeApplicationShutdown`) and the
 * connection after them (`onApplicationShutdown`). It connects lazily, so an API whose Redis is
 * down still starts and serves everything but the dashboard.
 */
@Injectable()
export class AdminQueues implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('AdminQueues');
  private readonly connection?: Redis;
  /** One per name in QUEUE_NAMES, with QUEUE_PREFIX; empty without REDIS_URL. */
  readonly queues: readonly Queue[];

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (!config.REDIS_URL) {
      this.queues = [];
      return;
    }
    // maxRetriesPerRequest: null is what BullMQ asks of its connections: commands wait for a
    // reconnect instead of failing after a few retries.
    const connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });
    connection.on('error', (error: Error) => this.logger.warn(`redis: ${error.message}`));
    this.connection = connection;
    this.queues = QUEUE_NAMES.map((name) => {
      const queue = new Queue(name, { connection, prefix: config.QUEUE_PREFIX });
      queue.on('error', (error) => this.logger.warn(`${name} queue: ${error.message}`));
      return queue;
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.queues.map((q) => q.close()));
  }

  async onApplicationShutdown(): Promise<void> {
    const c = this.connection;
    if (!c || c.status === 'end') return;
    // QUIT on a client that never connected would connect first, only to say goodbye.
    if (c.status === 'wait') c.disconnect();
    else await c.quit().catch(() => c.disconnect());
  }
}

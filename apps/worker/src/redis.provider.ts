import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@engram/config';

/**
 * The worker's Redis connection (BullMQ will share its options). `maxRetriesPerRequest: null`
 * is what BullMQ workers require; a dropped connection is retried with backoff by ioredis.
 */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (!config.REDIS_URL) throw new Error('REDIS_URL is required by the worker');
    this.client = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });
    this.client.on('error', (error: Error) => this.logger.warn(`redis: ${error.message}`));
  }

  /** Connects and checks the server answers PING. */
  async connect(): Promise<void> {
    // The queues may have opened it already (BullMQ connects a lazy client on first use).
    if (this.client.status === 'wait') await this.client.connect();
    await this.client.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.client.status !== 'end') await this.client.quit().catch(() => this.client.disconnect());
  }
}

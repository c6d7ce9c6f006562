import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { QueueConnections, createRedisClient, type RedisClient } from '@engram/queues';

/**
 * The worker's Redis: a client of its own (the start-up check, PING) and the connections of its
 * queues and workers, one Redis or a Redis Cluster (REDIS_CLUSTER) alike (libs/queues
 * createRedisClient). `maxRetriesPerRequest: null` is what BullMQ workers require; a dropped
 * connection is retried with backoff by ioredis.
 */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: RedisClient;
  private readonly connections: QueueConnections;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (!config.REDIS_URL) throw new Error('REDIS_URL is required by the worker');
    this.client = createRedisClient(config, { maxRetriesPerRequest: null, lazyConnect: true });
    this.client.on('error', (error: Error) => this.logger.warn(`redis: ${error.message}`));
    this.connections = new QueueConnections(config, { maxRetriesPerRequest: null });
  }

  /** Connects and checks the server answers PING. */
  async connect(): Promise<void> {
    if (this.client.status === 'wait') await this.client.connect();
    await this.client.ping();
  }

  /**
   * A connection for one Queue or Worker: its own client (see QueueConnections), closed by
   * BullMQ with it on one Redis, by {@link onApplicationShutdown} on a cluster.
   */
  connection(): ConnectionOptions {
    return this.connections.connection();
  }

  // After the workers and queues closed (they close in beforeApplicationShutdown).
  async onApplicationShutdown(): Promise<void> {
    await this.connections.close();
    if (this.client.status !== 'end') await this.client.quit().catch(() => this.client.disconnect());
  }
}

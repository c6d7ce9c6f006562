import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, redisWhere, type AppConfig } from '@engram/config';
import { ALL_QUEUE_NAMES, createRedisClient, queuePrefix, type RedisClient } from '@engram/queues';

/** How long the dashboard waits for Redis to answer before it tells the operator it is down. */
export const REDIS_CHECK_TIMEOUT_MS = 2_000;

/** The same warning (same cause) is logged at most once in this interval while Redis stays down. */
export const REDIS_WARN_INTERVAL_MS = 60_000;

/** Redis (REDIS_URL) does not answer: the dashboard answers 503 with this message. */
export class RedisUnavailableError extends Error {}

/**
 * The API's handles on the worker's queues, for the admin dashboard to read and manage (it adds
 * no workers: the API never runs queued jobs). Nothing without `REDIS_URL` (embedded mode: the
 * work runs in-process and there are no queues).
 *
 * The queues share one Redis connection that this provider owns (a Cluster with REDIS_CLUSTER:
 * libs/queues createRedisClient; each queue under its own queuePrefix). It connects at start-up and
 * keeps reconnecting while Redis is down, so an API whose Redis is down still starts and serves
 * everything but the dashboard, which answers 503 until Redis is back ({@link ensureReachable}).
 *
 * The BullMQ queues are only created once the connection is first ready. A BullMQ queue whose
 * first connection attempt fails keeps a rejected client promise for good (with `lazyConnect` it
 * never recovers), and some BullMQ paths turn that rejection into an unhandled rejection that
 * ends the process (`Queue.jobScheduler` awaits the client inside a `new Promise(async ...)`
 * executor, reached by bull-board's queue listing through `getJobSchedulersCount`). Created on a
 * ready connection, a queue's client promise has already resolved, and later outages only make
 * its commands wait for the reconnect.
 *
 * BullMQ does not close a connection it was handed, so the queues close first
 * (`beforeApplicationShutdown`) and the connection after them (`onApplicationShutdown`).
 *
 * While Redis is down ioredis retries several times a second and every queue repeats the
 * connection's error: each distinct warning is logged once, then at most once per
 * {@link REDIS_WARN_INTERVAL_MS} with the number of repeats left out, and recovery is logged once.
 */
@Injectable()
export class AdminQueues implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('AdminQueues');
  private readonly connection?: RedisClient;
  private readonly config: AppConfig;
  // host:port only: REDIS_URL may hold a password.
  private readonly where: string;
  private built: readonly Queue[] = [];
  private lastError?: Error;
  private readonly warned = new Map<string, { at: number; repeats: number }>();
  private closing = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.config = config;
    this.where = redisWhere(config.REDIS_URL);
    if (!config.REDIS_URL) return;
    // maxRetriesPerRequest: null is what BullMQ asks of its connections: commands wait for a
    // reconnect instead of failing after a few retries.
    const connection = createRedisClient(config, { maxRetriesPerRequest: null });
    // Registered before the queues' own listeners: they see the error already recorded.
    connection.on('error', (error: Error) => {
      this.lastError = error;
      this.warn(`Redis (${this.where}) is unreachable for the queue dashboard: ${error.message}`);
    });
    connection.on('ready', () => {
      if (this.warned.size > 0) this.logger.log(`Redis (${this.where}) is reachable again`);
      this.warned.clear();
      this.lastError = undefined;
      if (this.built.length === 0 && !this.closing) this.built = ALL_QUEUE_NAMES.map((name) => this.queue(name));
    });
    this.connection = connection;
  }

  /** Whether REDIS_URL is set, i.e. there are queues to show (once Redis answers). */
  get configured(): boolean {
    return this.connection !== undefined;
  }

  /** One per name in ALL_QUEUE_NAMES (the sweep queues and `webhooks`), with queuePrefix; empty until Redis was first reachable. */
  get queues(): readonly Queue[] {
    return this.built;
  }

  /**
   * Resolves when Redis answers a PING and every queue is ready, within `timeoutMs`.
   * @throws RedisUnavailableError otherwise, with a message for the operator.
   */
  async ensureReachable(timeoutMs = REDIS_CHECK_TIMEOUT_MS): Promise<void> {
    const c = this.connection;
    if (!c) throw new RedisUnavailableError('REDIS_URL is not set');
    if (c.status !== 'ready' || this.built.length === 0) throw this.unavailable(this.lastError?.message ?? `connection ${c.status}`);
    let timer: NodeJS.Timeout | undefined;
    const check = Promise.all([c.ping(), ...this.built.map((q) => q.waitUntilReady())]);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
    });
    // The loser of the race must not become an unhandled rejection.
    check.catch(() => undefined);
    try {
      await Promise.race([check, timeout]);
    } catch (error) {
      throw this.unavailable(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether an error met while serving the dashboard is most likely Redis being away. */
  isDown(): boolean {
    return this.connection !== undefined && this.connection.status !== 'ready';
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    await Promise.allSettled(this.built.map((q) => q.close()));
  }

  async onApplicationShutdown(): Promise<void> {
    const c = this.connection;
    if (!c || c.status === 'end') return;
    // QUIT on a client that is not connected would wait for a reconnect, only to say goodbye.
    if (c.status !== 'ready') c.disconnect();
    else await c.quit().catch(() => c.disconnect());
  }

  private queue(name: string): Queue {
    const queue = new Queue(name, { connection: this.connection as RedisClient, prefix: queuePrefix(this.config, name) });
    // Without a listener an 'error' event would throw. The connection's own errors come through
    // every queue too: they are logged once, by the connection's listener.
    queue.on('error', (error: Error) => {
      if (error !== this.lastError) this.warn(`${name} queue: ${error.message}`);
    });
    return queue;
  }

  private unavailable(cause: string): RedisUnavailableError {
    return new RedisUnavailableError(
      `the queue dashboard cannot reach Redis (REDIS_URL, ${this.where}): ${cause}; the rest of the API is unaffected, try again when Redis is back`,
    );
  }

  private warn(message: string, now = Date.now()): void {
    const seen = this.warned.get(message);
    if (seen && now - seen.at < REDIS_WARN_INTERVAL_MS) {
      seen.repeats += 1;
      return;
    }
    this.logger.warn(seen?.repeats ? `${message} (repeated ${seen.repeats} times since the last warning)` : message);
    // Causes are few (refused, timed out, DNS); the cap only guards against a message that varies.
    if (!seen && this.warned.size >= 100) this.warned.clear();
    this.warned.set(message, { at: now, repeats: 0 });
  }
}

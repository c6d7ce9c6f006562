import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type AppConfig } from '@engram/config';

/** A client of REDIS_URL: one Redis, or a Redis Cluster (REDIS_CLUSTER). Both speak the same commands. */
export type RedisClient = Redis | Cluster;

/** What the factory reads of the config. */
export type RedisConfig = Pick<AppConfig, 'REDIS_URL' | 'REDIS_CLUSTER'>;

/**
 * The one place that opens Redis clients (API, worker, rate limits, dashboard, producers): a
 * `Redis` on one node, an ioredis `Cluster` with REDIS_CLUSTER, seeded from every URL of
 * REDIS_URL and taking their credentials and TLS for every node it discovers.
 *
 * `options` are ioredis options of one connection; on a cluster the ones that belong to the
 * cluster as a whole (`lazyConnect`, `enableOfflineQueue`, `keyPrefix`) go there and the rest
 * to each node's connection (`maxRetriesPerRequest`, `connectTimeout`, …).
 * @throws Error when REDIS_URL is unset (loadConfig has checked it otherwise)
 */
export function createRedisClient(config: RedisConfig, options: RedisOptions = {}): RedisClient {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is not set');
  if (!config.REDIS_CLUSTER) return new Redis(config.REDIS_URL, options);
  const target = parseRedisUrl(config.REDIS_URL);
  const { lazyConnect, enableOfflineQueue, keyPrefix, ...node } = options;
  const cluster: ClusterOptions = {
    redisOptions: {
      ...node,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
    // TLS certificates name the hosts (ElastiCache, Memorystore): connect by the names the
    // cluster announces, not by addresses resolved from them, or verification fails.
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  };
  if (lazyConnect !== undefined) cluster.lazyConnect = lazyConnect;
  if (enableOfflineQueue !== undefined) cluster.enableOfflineQueue = enableOfflineQueue;
  if (keyPrefix !== undefined) cluster.keyPrefix = keyPrefix;
  return new Cluster(target.nodes, cluster);
}

/**
 * BullMQ `connection`s for one component's queues, workers and event streams, each its own
 * client (a client shared with a worker would be closed under it while it finishes its jobs).
 *
 * On one Redis each is a set of options: BullMQ opens the client and closes it with the
 * queue (what Engram always did). On a cluster BullMQ cannot build a Cluster from options, so
 * each is a Cluster opened here; BullMQ never closes a client it was handed, so {@link close}
 * does, after the queues and workers closed.
 */
export class QueueConnections {
  private readonly opened: Cluster[] = [];

  /** @param options ioredis options of every connection (see {@link createRedisClient}) */
  constructor(
    private readonly config: RedisConfig,
    private readonly options: RedisOptions = {},
  ) {}

  /** A connection for one Queue, Worker, QueueEvents or FlowProducer. @throws Error without REDIS_URL */
  connection(): ConnectionOptions {
    if (!this.config.REDIS_URL) throw new Error('REDIS_URL is not set');
    if (!this.config.REDIS_CLUSTER) return { url: this.config.REDIS_URL, ...this.options };
    const cluster = createRedisClient(this.config, this.options) as Cluster;
    // BullMQ listens on its own; without a listener of ours, an error before it attached would throw.
    cluster.on('error', () => undefined);
    this.opened.push(cluster);
    return cluster;
  }

  /** Closes the clusters opened by {@link connection} (none on one Redis). Never rejects. */
  async close(): Promise<void> {
    const opened = this.opened.splice(0);
    await Promise.allSettled(opened.map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())));
  }
}

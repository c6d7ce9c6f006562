import { Cluster, Redis } from 'ioredis';
import { queuePrefix } from './queues';
import { QueueConnections, createRedisClient } from './redis-connections';

describe('queuePrefix', () => {
  it('keeps QUEUE_PREFIX as it is on one Redis (existing keys do not move)', () => {
    expect(queuePrefix({ QUEUE_PREFIX: 'engram', REDIS_CLUSTER: false }, 'tiering')).toBe('engram');
  });

  it('is a hash tag per queue on a cluster: one slot per queue, different tags for different queues', () => {
    expect(queuePrefix({ QUEUE_PREFIX: 'engram', REDIS_CLUSTER: true }, 'tiering')).toBe('{engram:tiering}');
    expect(queuePrefix({ QUEUE_PREFIX: 'engram', REDIS_CLUSTER: true }, 'webhooks')).toBe('{engram:webhooks}');
  });
});

describe('createRedisClient', () => {
  it('opens a Redis on one node, a Cluster seeded from every URL with REDIS_CLUSTER', () => {
    const single = createRedisClient({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER: false }, { lazyConnect: true });
    expect(single).toBeInstanceOf(Redis);
    single.disconnect();

    const cluster = createRedisClient(
      { REDIS_URL: 'rediss://app:s3cret@a.example:7000,rediss://app:s3cret@b.example', REDIS_CLUSTER: true },
      { lazyConnect: true, enableOfflineQueue: false, keyPrefix: 'engram:ratelimit:', maxRetriesPerRequest: 1 },
    ) as Cluster;
    expect(cluster).toBeInstanceOf(Cluster);
    // What belongs to the cluster goes there, what belongs to each node's connection to the nodes.
    expect(cluster.options).toMatchObject({ lazyConnect: true, enableOfflineQueue: false, keyPrefix: 'engram:ratelimit:' });
    expect(cluster.options.redisOptions).toMatchObject({ username: 'app', password: 's3cret', tls: {}, maxRetriesPerRequest: 1 });
    expect(cluster.options.dnsLookup).toEqual(expect.any(Function));
    expect((cluster as unknown as { startupNodes: unknown }).startupNodes).toEqual([{ host: 'a.example', port: 7000 }, { host: 'b.example', port: 6379 }]);
    cluster.disconnect();
  });

  it('refuses to open anything without REDIS_URL', () => {
    expect(() => createRedisClient({ REDIS_URL: undefined, REDIS_CLUSTER: false })).toThrow(/REDIS_URL is not set/);
    expect(() => new QueueConnections({ REDIS_URL: undefined, REDIS_CLUSTER: true }).connection()).toThrow(/REDIS_URL is not set/);
  });

  it('hands BullMQ options on one Redis (BullMQ owns and closes the client), a Cluster on a cluster', async () => {
    expect(new QueueConnections({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER: false }, { maxRetriesPerRequest: null }).connection()).toEqual({ url: 'redis://r:6379', maxRetriesPerRequest: null });
    const connections = new QueueConnections({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER: true }, { lazyConnect: true });
    const cluster = connections.connection() as Cluster;
    expect(cluster).toBeInstanceOf(Cluster);
    await connections.close();
    expect(cluster.status).toBe('end');
  });
});

import { Logger, type ExecutionContext, type OnModuleDestroy } from '@nestjs/common';
import { ThrottlerModule, normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import { LRUCache } from 'lru-cache';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { ThrottledWarning, createRedisClient, type RedisClient } from '@engram/queues';
import type { Principal } from '../auth/principal';

/** The window of every limit: the limits are "per minute". */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Paths never limited: the probes and the Prometheus scrape (kubelet and Prometheus poll them). */
const UNLIMITED = /^\/(health|metrics)(\/|$)/;

/** Who a request counts against, and that bucket's limit per minute. */
export interface RateBucket {
  tracker: string;
  limit: number;
  /** Said in the 429's message. */
  per: string;
}

/**
 * A request authenticated by the global auth guard (which runs first) counts against its Mind
 * Key, its user, or its service key and the mind it names (`X-Mind-Id`), whatever the route; anything else (login, register, public routes) against
 * the client IP (`req.ip`: Express's `trust proxy` honours X-Forwarded-For from loopback and
 * private proxies only; IPv6 clients are grouped by /64).
 */
export function rateBucket(req: Request, config: AppConfig): RateBucket {
  const principal = (req as { user?: Principal }).user;
  if (principal?.kind === 'mind_key') return { tracker: `key:${principal.keyId}`, limit: config.RATE_LIMIT_PER_MINUTE, per: 'Mind Key' };
  if (principal?.kind === 'service_key') {
    // One backend key carries all of a SaaS's end users: each mind it acts on gets the budget
    // an agent's Mind Key would, so one busy end user cannot starve the others.
    const mind = req.headers['x-mind-id'];
    const tracker = `service-key:${principal.keyId}:${typeof mind === 'string' ? mind.toLowerCase().slice(0, 36) : '-'}`;
    return { tracker, limit: config.RATE_LIMIT_PER_MINUTE, per: 'service key and mind' };
  }
  if (principal?.kind === 'user') return { tracker: `user:${principal.userId}`, limit: config.RATE_LIMIT_PER_MINUTE, per: 'user' };
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return { tracker: `ip:${normalizeIp(ip)}`, limit: config.RATE_LIMIT_IP_PER_MINUTE, per: 'client IP' };
}

function bucketOf(context: ExecutionContext, config: AppConfig): RateBucket {
  return rateBucket(context.switchToHttp().getRequest<Request>(), config);
}

/**
 * Counts in Redis (shared by every API replica), failing open: while Redis does not answer,
 * requests pass unlimited rather than fail, and the outage is logged at most once a minute.
 * Keys: `<QUEUE_PREFIX>:ratelimit:{<throttler>:<tracker>}:hits` and `…:blocked`. The two keys
 * of one count are touched by one script; the storage's own hash tag (the braces) puts them
 * in one slot, so the same keys work on a Redis Cluster (REDIS_CLUSTER).
 */
export class FailOpenRedisStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: RedisClient;
  private readonly inner: ThrottlerStorageRedisService;
  private readonly warning = new ThrottledWarning(this.logger);

  /** @param config REDIS_URL (required), REDIS_CLUSTER and QUEUE_PREFIX */
  constructor(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_CLUSTER' | 'QUEUE_PREFIX'>) {
    // No offline queue: a command while Redis is away fails at once instead of holding the request.
    this.redis = createRedisClient(config, { keyPrefix: `${config.QUEUE_PREFIX}:ratelimit:`, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.redis.on('error', (error: Error) => this.warning.warn('Redis for rate limits', error));
    // It takes a Redis or a Cluster (one overload each, checked with instanceof at run time).
    this.inner = new ThrottlerStorageRedisService(this.redis as Redis);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    try {
      return await this.inner.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (error) {
      this.warning.warn('rate limits are not enforced while Redis does not answer', error);
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  onModuleDestroy(): void {
    this.redis.disconnect(false);
  }
}

/**
 * Counts in this process (no `REDIS_URL`), as the Redis storage counts (its script, in
 * @nest-lab/throttler-storage-redis): a fixed window of `ttl` from a bucket's first request,
 * and a bucket over its limit refused for `blockDuration` from that refusal. @nestjs/throttler's
 * own in-memory storage counts each request for `ttl` after it was made instead, so a client
 * that waited for `X-RateLimit-Reset` was refused again (the window's earlier requests still
 * counted): the headers and docs/api.md describe fixed windows. Buckets are kept in an LRU of
 * 100 000 (least recently counted out first).
 */
export class FixedWindowMemoryStorage implements ThrottlerStorage {
  private readonly buckets = new LRUCache<string, { hits: number; windowEnds: number; blockedUntil: number }>({ max: 100_000 });

  constructor(private readonly now: () => number = Date.now) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    const id = `${key}:${throttlerName}`;
    const now = this.now();
    const known = this.buckets.get(id);
    const bucket = known && known.windowEnds > now ? known : { hits: 0, windowEnds: now + ttl, blockedUntil: known?.blockedUntil ?? 0 };
    bucket.hits += 1;
    let blockedFor = 0;
    if (bucket.blockedUntil > now) blockedFor = bucket.blockedUntil - now;
    else if (bucket.hits > limit) {
      bucket.blockedUntil = now + blockDuration;
      blockedFor = blockDuration;
    }
    this.buckets.set(id, bucket);
    return { totalHits: bucket.hits, timeToExpire: Math.ceil((bucket.windowEnds - now) / 1000), isBlocked: blockedFor > 0, timeToBlockExpire: Math.ceil(blockedFor / 1000) };
  }
}

/**
 * The edge rate limits (@nestjs/throttler): one fixed one-minute window per bucket
 * ({@link rateBucket}), `RATE_LIMIT_PER_MINUTE` per Mind Key or user and
 * `RATE_LIMIT_IP_PER_MINUTE` per client IP (0 turns either off). Counted in Redis when
 * `REDIS_URL` is set (under `<QUEUE_PREFIX>:ratelimit:`), else in this process's memory
 * ({@link FixedWindowMemoryStorage}, the same rules). A bucket over its limit is refused with 429
 * and `Retry-After` (seconds) for one minute from its first refused request, in the API's error
 * shape. The guard itself is `ThrottlerGuard`, registered as a global guard
 * after the auth guard in AppModule.
 */
export const RateLimitModule = ThrottlerModule.forRootAsync({
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => ({
    throttlers: [
      {
        name: 'default',
        ttl: RATE_LIMIT_WINDOW_MS,
        limit: (context: ExecutionContext) => bucketOf(context, config).limit,
      },
    ],
    storage: config.REDIS_URL ? new FailOpenRedisStorage(config) : new FixedWindowMemoryStorage(),
    skipIf: (context: ExecutionContext) => {
      if (context.getType() !== 'http') return true;
      const req = context.switchToHttp().getRequest<Request>();
      return UNLIMITED.test(req.path) || bucketOf(context, config).limit <= 0;
    },
    getTracker: (req: Record<string, unknown>) => rateBucket(req as unknown as Request, config).tracker,
    // One bucket over every route (the default key is per route).
    generateKey: (_context: ExecutionContext, tracker: string, name: string) => `${name}:${tracker}`,
    errorMessage: (context: ExecutionContext, detail: { limit: number; timeToBlockExpire: number }) =>
      `rate limit exceeded: ${detail.limit} requests per minute per ${bucketOf(context, config).per}; retry after ${detail.timeToBlockExpire} s`,
  }),
});

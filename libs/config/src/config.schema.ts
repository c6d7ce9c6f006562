import { z } from 'zod';
import { parseRedisUrl } from './redis-url';

/** Accepts "true"/"false"/"1"/"0" from the environment; anything else is a config error. */
const envBoolean = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' });

/**
 * Every setting Engram reads from the environment, with its default.
 * Parsed once at start; a bad value stops start-up with a message naming the variable
 * (CONVENTIONS "Errors, config, logs").
 */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** HTTP port of the API. */
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** Postgres for the app (runs as role engram_app). Unset: embedded PGlite under ENGRAM_DATA_DIR. */
    DATABASE_URL: postgresUrl.optional(),
    /** Postgres for migrations, as the owner of the tables. Defaults to DATABASE_URL. */
    MIGRATION_DATABASE_URL: postgresUrl.optional(),
    /** Connections in the app's pool (per process). */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
    /**
     * Statements on the hot paths (search, recall, reads, the access update) run as named
     * prepared statements, planned once per connection (libs/db prepared.ts). Turn off behind a
     * transaction-mode PgBouncer older than 1.21 (it cannot keep a connection's statements).
     */
    DATABASE_PREPARED_STATEMENTS: envBoolean.default(true),
    /** Where embedded mode keeps its database and generated secrets. */
    ENGRAM_DATA_DIR: z.string().min(1).default('./data'),
    /**
     * Redis for BullMQ and the shared rate limits. Unset: background work runs in-process
     * (embedded mode). With REDIS_CLUSTER: one or more comma-separated URLs of the cluster's
     * nodes (seeds; the client discovers the others). Checked by parseRedisUrl (superRefine).
     */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
      .optional(),
    /**
     * REDIS_URL names a Redis Cluster (cluster mode enabled: ElastiCache, Memorystore cluster,
     * `redis-server --cluster-enabled yes`): clients are ioredis Clusters, and each queue's
     * BullMQ prefix becomes a hash tag of its own (libs/queues queuePrefix).
     */
    REDIS_CLUSTER: envBoolean.default(false),
    /**
     * How long a process keeps a Mind Key's or service key's look-up (ms): a key revoked in
     * another process is refused there at most this much later. 0: every request looks it up.
     */
    AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    /**
     * How long reads' accesses (a GET by id, search hits, recall entries) wait in the process
     * before they are written, in batches, one transaction per tenant (ms; docs/design.md §5.5
     * "Recording accesses"). A crash loses at most the accesses of this window and of the write
     * in progress; a clean shutdown (SIGTERM) writes them all. 0: each read writes its accesses
     * in its own transaction before it answers (exact, slower).
     */
    ACCESS_FLUSH_MS: z.coerce.number().int().min(0).max(60_000).default(200),
    /** HS256 secret for user JWTs, at least 32 characters. Embedded mode generates and keeps one. */
    JWT_SECRET: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    /** Set by loadConfig, not by the environment: whether this process signs JWTs (the API does, the worker not). */
    ENGRAM_ISSUES_TOKENS: z.boolean().default(true),
    JWT_ISSUER: z.string().min(1).default('engram'),
    JWT_AUDIENCE: z.string().min(1).default('engram-api'),
    /** Lifetime of an issued user JWT, in seconds (default 12 hours). */
    JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(43_200),
    /** Platform operator token (provisioning and the admin dashboard). */
    ENGRAM_OPERATOR_TOKEN: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
    /** Largest accepted JSON body (bytes, or a size like "20mb"). */
    BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)?$/i, { message: 'must be a size like 20mb' }).default('20mb'),
    /**
     * Largest accepted import file (`POST /v1/tenant/import`, decompressed): an export holds each
     * memory and its history, so a tenant's own export soon outgrew BODY_LIMIT (a peer's bug report
     * class, tried on Engram). The file is read whole and imported in one transaction.
     */
    IMPORT_BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)?$/i, { message: 'must be a size like 200mb' }).default('200mb'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Pretty, human-readable logs instead of JSON lines (development only). */
    LOG_PRETTY: envBoolean.default(false),
    /** OpenAI-compatible chat endpoint for importance scoring (base URL, e.g. http://host/v1). Unset: the rule engine. */
    LLM_URL: z.url({ message: 'must be an http(s) URL' }).optional(),
    LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
    LLM_API_KEY: z.string().min(1).optional(),
    /** Time allowed for one LLM call before the rule engine scores instead (ms). */
    LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
    /** OpenAI-compatible embeddings endpoint (base URL, e.g. http://host/v1). Unset: the local hashing embedder. */
    EMBEDDINGS_URL: z.url({ message: 'must be an http(s) URL' }).optional(),
    EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    /** Texts per request to the embeddings endpoint. */
    EMBEDDINGS_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
    /** Time allowed for one embeddings request (ms); retried twice with backoff. */
    EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
    /** Send `dimensions: 768` with embeddings requests (OpenAI text-embedding-3 needs it; turn off for endpoints that refuse the field). */
    EMBEDDINGS_SEND_DIMENSIONS: envBoolean.default(true),
    /** How long a write or search waits for an embedding (ms): then the memory is stored pending, the search uses full text alone. */
    EMBEDDINGS_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(1500),
    /**
     * Prefix of every BullMQ key in Redis: deployments (or tests) sharing a Redis keep apart by
     * it. On one Redis, keys are `<prefix>:<queue>:…`; with REDIS_CLUSTER, `{<prefix>:<queue>}:<queue>:…`
     * (a hash tag per queue, libs/queues queuePrefix). The braces are added, never written here.
     */
    QUEUE_PREFIX: z.string().regex(/^[a-z0-9_-]{1,64}$/, { message: 'must be 1-64 of a-z, 0-9, _ and -' }).default('engram'),
    /** Jobs one worker runs at once, per queue. */
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /** How long a worker holds a job before another may take it back (ms): a killed worker's jobs return after about this long. */
    WORKER_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    /** How often memories are re-tiered by access frequency (ms); 0 turns it off. */
    TIERING_INTERVAL_MS: z.coerce.number().int().min(0).max(604_800_000).default(3_600_000),
    /** How often new and changed memories are linked into the association graph (ms); 0 turns it off. */
    ASSOCIATIONS_INTERVAL_MS: z.coerce.number().int().min(0).max(604_800_000).default(60_000),
    /**
     * Embedded mode only: how often the tables are checked for what PostgreSQL's autovacuum would
     * do (VACUUM, ANALYZE), which PGlite never runs (ms); 0 turns it off.
     */
    EMBEDDED_VACUUM_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(5_000),
    /** How often systems consolidation runs (ms); 0 turns it off. */
    SYSTEMS_CONSOLIDATION_INTERVAL_MS: z.coerce.number().int().min(0).max(604_800_000).default(86_400_000),
    /** How often pending embeddings are retried in the background (ms); 0 turns it off. */
    EMBEDDINGS_BACKFILL_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(5000),
    /**
     * A mind of at least this many memories is large (docs/design.md §6.1): its memories are kept in
     * the HNSW index and search reaches them through it (smaller ones are scanned exactly and pay
     * for no index on write; those written before their mind grew this large join at the next
     * tiering sweep), and its recall header counts are reused for a minute.
     */
    LARGE_MIND_MEMORIES: z.coerce.number().int().min(1).max(100_000_000).default(10_000),
    /** How often the forgetting sweep runs (ms); 0 turns it off. */
    FORGETTING_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(900_000),
    /** How often the STM sleep cycle consolidates waiting entries (ms); 0 turns it off. */
    SLEEP_CYCLE_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
    /**
     * Let webhook endpoints be on private, loopback, link-local or unspecified addresses
     * (docs/webhooks.md "Addresses refused"). Off: such URLs are refused at registration and at
     * every delivery (SSRF). For development and tests, or a receiver inside the cluster.
     */
    WEBHOOK_ALLOW_PRIVATE_URLS: envBoolean.default(false),
    /** Attempts of one webhook delivery before it is marked failed (the first included). */
    WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(12),
    /** Wait before the second attempt of a webhook delivery (ms); each later wait doubles (12 attempts span about 17 hours). */
    WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(86_400_000).default(30_000),
    /** Time allowed for a webhook receiver to answer (ms); longer counts as a failed attempt. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /**
     * How often due webhook deliveries are looked for (ms); 0 turns it off. Without REDIS_URL
     * this runs every retry; with it, it enqueues again the deliveries whose queue message was
     * lost (WEBHOOK_LOST_AFTER_MS overdue).
     */
    WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
    /** With REDIS_URL: a pending webhook delivery this long past due lost its queue message (a crash, an empty Redis) and is enqueued again (ms). */
    WEBHOOK_LOST_AFTER_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
    /** Serve the OpenAPI UI at /docs and the document at /docs-json. */
    OPENAPI_ENABLED: envBoolean.default(true),
    /**
     * Bearer token that `GET /metrics` (API and worker) requires, at least 16 characters. Unset:
     * the metrics are public (they hold aggregate counts and timings only, no tenant data).
     */
    METRICS_TOKEN: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    /** Port of the worker's Prometheus `/metrics` server (on HOST); 0 turns it off. */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    /** Requests per minute per Mind Key or per user (JWT), over every route; 0 turns the limit off. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
    /** Requests per minute per client IP for unauthenticated requests (login, register); 0 turns the limit off. */
    RATE_LIMIT_IP_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(1200),
    /** Browser origins allowed by CORS, comma-separated (`https://app.example.com,https://x.example`) or `*`. Unset: CORS off. */
    CORS_ORIGINS: z
      .string()
      .transform((v) => v.split(',').map((o) => o.trim()).filter((o) => o.length > 0))
      .refine((list) => list.length > 0 && list.every((o) => o === '*' || /^https?:\/\/[^/\s,]+$/.test(o)), {
        message: 'must be * or comma-separated origins like https://app.example.com (scheme and host, no path)',
      })
      .optional(),
  })
  .superRefine((env, ctx) => {
    checkRedis(env, ctx);
    // Only the API signs tokens: the worker (loadConfig with issuesTokens false) does without.
    if (env.ENGRAM_ISSUES_TOKENS && env.NODE_ENV === 'production' && env.DATABASE_URL && !env.JWT_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'is required in production when DATABASE_URL is set (tokens must survive restarts and be shared by all pods)',
      });
    }
  });

export type AppConfig = z.infer<typeof configSchema>;

/** REDIS_URL parses; several nodes only with REDIS_CLUSTER; a cluster has database 0 only. */
function checkRedis(env: { REDIS_URL?: string; REDIS_CLUSTER: boolean }, ctx: z.RefinementCtx): void {
  if (!env.REDIS_URL) {
    if (env.REDIS_CLUSTER) ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER'], message: 'needs REDIS_URL naming one or more of the cluster\'s nodes (comma-separated redis:// URLs)' });
    return;
  }
  let nodes: number;
  let db: number;
  try {
    ({ nodes: { length: nodes }, db } = parseRedisUrl(env.REDIS_URL));
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: (error as Error).message });
    return;
  }
  if (nodes > 1 && !env.REDIS_CLUSTER) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: `names ${nodes} nodes: a list of nodes is for a Redis Cluster (set REDIS_CLUSTER=true); a single Redis takes one URL` });
  }
  if (env.REDIS_CLUSTER && db !== 0) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: `names database ${db}: a Redis Cluster has database 0 only (drop the /${db})` });
  }
}

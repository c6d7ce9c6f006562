import type { AppConfig } from '@engram/config';
import type { JobsOptions } from 'bullmq';

/** The queues of background work (docs/design.md §7), one processor each in the worker. */
export enum QueueName {
  /** The STM sleep cycle: consolidation of short-term into long-term memory. */
  Consolidation = 'consolidation',
  /** Hippocampus → neocortex after 30 days (seed 000 systems_consolidation). */
  SystemsConsolidation = 'systems-consolidation',
  /** hot / warm / cold / archive by access frequency (seed 000 auto_tiering). */
  Tiering = 'tiering',
  /** Retention snapshots, soft-forgetting and eviction (docs/design.md §5). */
  Forgetting = 'forgetting',
  /** Embedding of pending memories and re-embedding after a change of model. */
  Embedding = 'embedding',
  /** The association graph: links of new and changed memories (seed 000 associations). */
  Associations = 'associations',
}

export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);

/**
 * The queue of webhook deliveries (docs/webhooks.md). Not one of the per-tenant sweep queues of
 * {@link QueueName}: its jobs are one delivery each, not a tenant's sweep, and it has no fan-out
 * (libs/queues webhooks.ts has its job names, payload and options).
 */
export const WEBHOOK_QUEUE = 'webhooks';

/** Every BullMQ queue: the sweep queues and the webhook queue (what the dashboard and the metrics show). */
export const ALL_QUEUE_NAMES: readonly string[] = [...QUEUE_NAMES, WEBHOOK_QUEUE];

/**
 * The BullMQ `prefix` of queue `name` (every Queue, Worker and QueueEvents of it must use this).
 *
 * One Redis: QUEUE_PREFIX as it is, keys `engram:tiering:wait`, … (unchanged since the first
 * release, so existing deployments keep their jobs and schedulers).
 *
 * A Redis Cluster (REDIS_CLUSTER): BullMQ's Lua scripts touch several keys of a queue at once,
 * which a cluster allows only within one hash slot, so the prefix is a hash tag
 * (docs.bullmq.io "Redis Cluster"): `{engram:tiering}`, keys `{engram:tiering}:tiering:wait`.
 * One tag per queue, not one for all: each queue's keys share a slot, and the queues spread
 * over the masters instead of loading one. No BullMQ call of Engram spans two queues (a fan-out
 * enqueues into its own queue; no flows), so nothing needs two queues in one slot.
 */
export function queuePrefix(config: Pick<AppConfig, 'QUEUE_PREFIX' | 'REDIS_CLUSTER'>, name: string): string {
  return config.REDIS_CLUSTER ? `{${config.QUEUE_PREFIX}:${name}}` : config.QUEUE_PREFIX;
}

/**
 * The jobs, named after their classes in libs/jobs (twenty's habit: the job name is the class
 * name, so the dashboard, the logs and the code say the same). Every queue holds its scheduled
 * fan-out and the per-tenant job it enqueues.
 */
export enum JobName {
  /** Lists the tenants and enqueues the queue's job for each (libs/jobs FanOutJob). */
  FanOut = 'FanOutJob',
  SleepCycle = 'SleepCycleJob',
  SystemsConsolidation = 'SystemsConsolidationJob',
  Tiering = 'TieringJob',
  Forgetting = 'ForgettingJob',
  EmbeddingBackfill = 'EmbeddingBackfillJob',
  Association = 'AssociationJob',
}

/** The per-tenant job of each queue. */
export const QUEUE_JOBS: Readonly<Record<QueueName, JobName>> = {
  [QueueName.Consolidation]: JobName.SleepCycle,
  [QueueName.SystemsConsolidation]: JobName.SystemsConsolidation,
  [QueueName.Tiering]: JobName.Tiering,
  [QueueName.Forgetting]: JobName.Forgetting,
  [QueueName.Embedding]: JobName.EmbeddingBackfill,
  [QueueName.Associations]: JobName.Association,
};

/**
 * The job names of releases before jobs were named after their classes (`fan-out`, `tenant`):
 * jobs of those names still in Redis during a rolling deploy are run as their new names.
 */
export function currentJobName(queue: QueueName, name: string): string {
  if (name === 'fan-out') return JobName.FanOut;
  if (name === 'tenant') return QUEUE_JOBS[queue];
  return name;
}

/** A fan-out holds nothing: it lists the tenants when it runs. */
export type FanOutPayload = Record<string, never>;

/** Ids only (and the instant the sweep is for, so that a retry computes the same state). */
export interface TenantPayload {
  tenantId: string;
  /** ISO 8601: the sweep's `now`. */
  at: string;
}

/** Retries back off exponentially; failed jobs stay a week for inspection, completed ones a day. */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 4,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 86_400, count: 5_000 },
  removeOnFail: { age: 7 * 86_400 },
};

/**
 * The deterministic id of a tenant's job for one fan-out: enqueueing it twice (a fan-out that is
 * retried, two schedulers) adds it once. BullMQ ids may not contain `:`.
 */
export function tenantJobId(queue: QueueName, tenantId: string, fanOutId: string): string {
  return `${queue}.${tenantId}.${fanOutId}`.replace(/:/g, '_');
}

/** How often each queue's fan-out runs (ms; 0: never, on demand only). */
export function scheduleIntervals(config: AppConfig): Record<QueueName, number> {
  return {
    [QueueName.Consolidation]: config.SLEEP_CYCLE_INTERVAL_MS,
    [QueueName.SystemsConsolidation]: config.SYSTEMS_CONSOLIDATION_INTERVAL_MS,
    [QueueName.Tiering]: config.TIERING_INTERVAL_MS,
    [QueueName.Forgetting]: config.FORGETTING_INTERVAL_MS,
    [QueueName.Embedding]: config.EMBEDDINGS_BACKFILL_INTERVAL_MS,
    [QueueName.Associations]: config.ASSOCIATIONS_INTERVAL_MS,
  };
}

import type { AppConfig } from '@engram/config';
import type { JobsOptions } from 'bullmq';

/** The queues of background work (DESIGN §7), one processor each in the worker. */
export enum QueueName {
  /** The STM sleep cycle: consolidation of short-term into long-term memory. */
  Consolidation = 'consolidation',
  /** Hippocampus → neocortex after 30 days (seed 000 systems_consolidation). */
  SystemsConsolidation = 'systems-consolidation',
  /** hot / warm / cold / archive by access frequency (seed 000 auto_tiering). */
  Tiering = 'tiering',
  /** Retention snapshots, soft-forgetting and eviction (DESIGN §5). */
  Forgetting = 'forgetting',
  /** Embedding of pending memories and re-embedding after a change of model. */
  Embedding = 'embedding',
}

export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);

/** Jobs of every queue: a scheduled fan-out, and the per-tenant work it enqueues. */
export enum JobName {
  FanOut = 'fan-out',
  Tenant = 'tenant',
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
  };
}

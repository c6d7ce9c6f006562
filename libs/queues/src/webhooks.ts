import { ThrottledWarning } from './throttled-warning';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue, type JobsOptions } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { WEBHOOK_QUEUE, queuePrefix } from './queues';
import { QueueConnections } from './redis-connections';

const UNQUEUED = 'webhook deliveries cannot be enqueued (the sweep will enqueue them later)';

/** The job names of the `webhooks` queue, named after what runs them (libs/services WebhookDeliverer, the worker's sweep). */
export enum WebhookJobName {
  /** One attempt of one delivery. */
  Delivery = 'WebhookDeliveryJob',
  /** The scheduled look-up of pending deliveries whose job was lost; enqueues them again. */
  Sweep = 'WebhookSweepJob',
}

/** Ids only: the delivery row holds the rest. */
export interface WebhookDeliveryPayload {
  tenantId: string;
  deliveryId: string;
}

/**
 * A delivery's job options: `jobId` = the delivery id, so enqueueing a delivery twice (after
 * commit, and again by the sweep) adds it once; `WEBHOOK_MAX_ATTEMPTS` attempts, exponential
 * backoff from `WEBHOOK_BACKOFF_MS` (BullMQ waits `delay × 2^(n−1)` after the n-th failure, the
 * same schedule {@link webhookRetryDelayMs} records in the delivery row). Kept a week either
 * way: the dashboard shows them, and a kept job is what makes a second enqueue a no-op.
 */
export function webhookJobOptions(config: Pick<AppConfig, 'WEBHOOK_MAX_ATTEMPTS' | 'WEBHOOK_BACKOFF_MS'>, deliveryId: string): JobsOptions {
  return {
    jobId: deliveryId,
    attempts: config.WEBHOOK_MAX_ATTEMPTS,
    backoff: { type: 'exponential', delay: config.WEBHOOK_BACKOFF_MS },
    removeOnComplete: { age: 7 * 86_400, count: 100_000 },
    removeOnFail: { age: 7 * 86_400 },
  };
}

/** The wait after the `attempt`-th failed attempt (1-based) before the next one (ms): BullMQ's exponential backoff. */
export function webhookRetryDelayMs(config: Pick<AppConfig, 'WEBHOOK_BACKOFF_MS'>, attempt: number): number {
  return config.WEBHOOK_BACKOFF_MS * 2 ** Math.max(0, attempt - 1);
}

/**
 * The `webhooks` queue's producer in the API and the worker (with `REDIS_URL`): enqueues
 * deliveries after the transaction that wrote them committed. Never fails or delays the write
 * that caused them: with Redis unreachable nothing is enqueued, a warning is logged (at most
 * once a minute), and the worker's sweep enqueues them once they are `WEBHOOK_LOST_AFTER_MS`
 * overdue.
 */
@Injectable()
export class WebhookQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('WebhookQueue');
  readonly queue: Queue | undefined;
  private readonly connections: QueueConnections | undefined;
  private readonly warning = new ThrottledWarning(this.logger);

  constructor(@Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig) {
    if (!config?.REDIS_URL) return;
    // Fail fast while Redis is away (no offline queue, few retries): a write must not wait on it.
    this.connections = new QueueConnections(config, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.queue = new Queue(WEBHOOK_QUEUE, { connection: this.connections.connection(), prefix: queuePrefix(config, WEBHOOK_QUEUE) });
    this.queue.on('error', (error) => this.warning.warn(UNQUEUED, error));
  }

  /** Whether deliveries go through BullMQ (REDIS_URL is set). */
  get enabled(): boolean {
    return this.queue !== undefined;
  }

  /** Enqueues the deliveries (ids of one tenant). Resolves when enqueued or given up; never rejects. */
  async enqueue(tenantId: string, deliveryIds: readonly string[]): Promise<void> {
    if (!this.queue || !this.config || deliveryIds.length === 0) return;
    const config = this.config;
    try {
      await this.queue.addBulk(
        deliveryIds.map((deliveryId) => ({
          name: WebhookJobName.Delivery,
          data: { tenantId, deliveryId } satisfies WebhookDeliveryPayload,
          opts: webhookJobOptions(config, deliveryId),
        })),
      );
    } catch (error) {
      this.warning.warn(UNQUEUED, error);
    }
  }

  /**
   * Enqueues a delivery that may have run before (a retry asked by the tenant, a delivery the
   * sweep found overdue): a finished job of the same id would make the enqueue a no-op, so it
   * is removed first; a waiting, delayed or active one is left alone (it will run).
   * Without REDIS_URL it does nothing.
   * @throws what Redis throws (the caller decides whether that matters)
   */
  async requeue(tenantId: string, deliveryId: string): Promise<void> {
    const queue = this.queue;
    const config = this.config;
    if (!queue || !config) return;
    const existing = await Job.fromId(queue, deliveryId);
    if (existing) {
      const state = await existing.getState();
      if (state !== 'completed' && state !== 'failed') return;
      await existing.remove();
    }
    await queue.add(WebhookJobName.Delivery, { tenantId, deliveryId } satisfies WebhookDeliveryPayload, webhookJobOptions(config, deliveryId));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    await this.connections?.close();
  }
}

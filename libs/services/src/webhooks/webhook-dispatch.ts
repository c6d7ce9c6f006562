import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { TenantDb, WebhooksRepository } from '@engram/db';
import { WebhookQueue } from '@engram/queues';
import { WebhookDeliverer } from './webhook-deliverer';

/** Due deliveries read per look-up. */
const DUE_BATCH = 500;

/** Deliveries waiting in-process at most; more are left to the next look-up (they are pending in the database). */
const MAX_WAITING = 10_000;

/**
 * Where committed webhook deliveries go (docs/webhooks.md "Delivery"). With `REDIS_URL`: the
 * `webhooks` BullMQ queue (one job per delivery, job id = delivery id), run by the worker, and
 * {@link requeueLost}, the worker's sweep, enqueues again the pending deliveries whose message
 * was lost. Without it (embedded mode): attempted in this process, `WORKER_CONCURRENCY` at a
 * time, and {@link runDue}, on a timer, attempts every pending delivery that is due: the
 * retries, and whatever a restart interrupted. Either way the delivery rows are the truth.
 */
@Injectable()
export class WebhookDispatch implements OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatch');
  private readonly waiting: { tenantId: string; id: string }[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly queue: WebhookQueue,
    private readonly deliverer: WebhookDeliverer,
    private readonly tenantDb: TenantDb,
    private readonly webhooks: WebhooksRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether deliveries run in this process (no REDIS_URL). */
  get inProcess(): boolean {
    return !this.queue.enabled;
  }

  /** After the commit of the transaction that wrote them: enqueue, or attempt in-process. Never throws. */
  dispatch(tenantId: string, deliveryIds: readonly string[]): void {
    if (this.queue.enabled) {
      void this.queue.enqueue(tenantId, deliveryIds);
      return;
    }
    for (const id of deliveryIds) this.schedule(tenantId, id);
  }

  /**
   * A delivery the tenant asked to retry (already pending again in the database): enqueued
   * even if its job finished before, or attempted in-process.
   */
  async retry(tenantId: string, deliveryId: string): Promise<void> {
    if (this.queue.enabled) {
      try {
        await this.queue.requeue(tenantId, deliveryId);
      } catch (error) {
        this.logger.warn(`retry of webhook delivery ${deliveryId} not enqueued (the sweep will): ${error instanceof Error ? error.message : String(error)}`);
      }
      return;
    }
    this.schedule(tenantId, deliveryId);
  }

  /**
   * In-process: attempts every pending delivery now due (at most 500 per call), and waits for
   * those attempts. @returns how many it started
   */
  async runDue(): Promise<number> {
    const due = await this.tenantDb.runWithoutTenant((db) => this.webhooks.due(db, 0, DUE_BATCH));
    const started = due.filter((d) => this.schedule(d.tenantId, d.id));
    await this.idle();
    return started.length;
  }

  /**
   * With the queue: enqueues again the pending deliveries `WEBHOOK_LOST_AFTER_MS` past due (a
   * crash between commit and enqueue, an emptied Redis); a delivery whose job still waits or
   * runs is left alone. @returns how many it looked at
   */
  async requeueLost(): Promise<number> {
    const lost = await this.tenantDb.runWithoutTenant((db) => this.webhooks.due(db, this.config.WEBHOOK_LOST_AFTER_MS / 1000, DUE_BATCH));
    for (const d of lost) await this.queue.requeue(d.tenantId, d.id);
    return lost.length;
  }

  /** Resolves when no in-process attempt is waiting or running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    await this.idle();
  }

  /** Queues an in-process attempt unless that delivery is already queued or running. @returns whether it was queued */
  private schedule(tenantId: string, id: string): boolean {
    if (this.closed || this.queued.has(id) || this.waiting.length >= MAX_WAITING) return false;
    this.queued.add(id);
    this.waiting.push({ tenantId, id });
    this.pump();
    return true;
  }

  private pump(): void {
    while (this.running.size < this.config.WORKER_CONCURRENCY && this.waiting.length > 0) {
      const next = this.waiting.shift() as { tenantId: string; id: string };
      const run: Promise<unknown> = this.deliverer
        .attempt(next.tenantId, next.id)
        .catch((error: unknown) => this.logger.warn(`webhook delivery ${next.id} not attempted: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          this.running.delete(run);
          this.queued.delete(next.id);
          this.pump();
        });
      this.running.add(run);
    }
  }
}

import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EngramMetrics } from '@engram/metrics';
import { WEBHOOK_QUEUE, WebhookJobName, queuePrefix, type WebhookDeliveryPayload } from '@engram/queues';
import { WebhookDeliverer, WebhookDispatch, type AttemptOutcome } from '@engram/services';
import { RedisConnection } from './redis.provider';

/** Id of the `webhooks` queue's scheduler of {@link WebhookJobName.Sweep}. */
const SWEEP_SCHEDULER = 'webhooks-sweep';

/**
 * The worker of the `webhooks` queue (docs/webhooks.md): a `WebhookDeliveryJob` is one attempt
 * of one delivery (libs/services WebhookDeliverer). A failed attempt that will be retried throws,
 * so that BullMQ retries it with its exponential backoff (the same schedule the delivery row
 * records); the last one throws an UnrecoverableError, so the job ends `failed` and shows in the
 * dashboard. A `WebhookSweepJob`, every `WEBHOOK_DISPATCH_INTERVAL_MS` (`upsertJobScheduler`),
 * enqueues again the pending deliveries whose job was lost. Its queue and worker are counted by
 * the metrics like the others (`engram_queue_jobs{queue="webhooks"}`, `engram_jobs_failed_total`).
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookWorker');
  queue?: Queue;
  private worker?: Worker;

  constructor(
    private readonly redis: RedisConnection,
    private readonly deliverer: WebhookDeliverer,
    private readonly dispatch: WebhookDispatch,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: EngramMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Connections of their own (see QueueWorkers).
    const prefix = queuePrefix(this.config, WEBHOOK_QUEUE);
    const queue = new Queue(WEBHOOK_QUEUE, { connection: this.redis.connection(), prefix });
    queue.on('error', (error) => this.logger.warn(`${WEBHOOK_QUEUE} queue: ${error.message}`));
    this.queue = queue;
    const every = this.config.WEBHOOK_DISPATCH_INTERVAL_MS;
    if (every > 0) {
      const upsert = () => queue.upsertJobScheduler(SWEEP_SCHEDULER, { every }, { name: WebhookJobName.Sweep, data: {}, opts: { removeOnComplete: { age: 3600, count: 100 }, removeOnFail: { age: 86_400 } } });
      await upsert();
      // A Redis that came back empty lost the scheduler too (see QueueWorkers.restoreScheduler).
      (await queue.client).on('ready', () => void queue.getJobScheduler(SWEEP_SCHEDULER).then((s) => (s ? undefined : upsert())).catch(() => undefined));
    } else {
      await queue.removeJobScheduler(SWEEP_SCHEDULER);
    }
    const worker = new Worker(WEBHOOK_QUEUE, (job) => this.process(job), {
      connection: this.redis.connection(),
      prefix,
      concurrency: this.config.WORKER_CONCURRENCY,
      lockDuration: this.config.WORKER_LOCK_MS,
      stalledInterval: Math.max(1000, Math.floor(this.config.WORKER_LOCK_MS / 2)),
    });
    worker.on('failed', (job, error) => this.logger.warn(`${WEBHOOK_QUEUE} job ${job?.id ?? '?'} failed (attempt ${job?.attemptsMade ?? '?'}): ${error.message}`));
    worker.on('error', (error) => this.logger.warn(`${WEBHOOK_QUEUE} worker: ${error.message}`));
    this.metrics?.watchWorker(WEBHOOK_QUEUE, worker);
    this.worker = worker;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close().catch(() => undefined);
    await this.queue?.close().catch(() => undefined);
  }

  /** One attempt, or the sweep. @throws to have BullMQ retry (or, the last time, fail) the job */
  async process(job: Job): Promise<AttemptOutcome | { requeued: number }> {
    if (job.name === WebhookJobName.Sweep) return { requeued: await this.dispatch.requeueLost() };
    if (job.name !== WebhookJobName.Delivery) throw new UnrecoverableError(`queue ${WEBHOOK_QUEUE} runs ${WebhookJobName.Delivery} and ${WebhookJobName.Sweep}, not ${job.name}`);
    const { tenantId, deliveryId } = job.data as WebhookDeliveryPayload;
    const outcome = await this.deliverer.attempt(tenantId, deliveryId);
    if (outcome.status === 'pending') throw new Error(`attempt ${outcome.attempt}: ${outcome.error ?? 'failed'}; will retry`);
    if (outcome.status === 'failed') throw new UnrecoverableError(`attempt ${outcome.attempt}, the last: ${outcome.error ?? 'failed'}`);
    return outcome;
  }
}

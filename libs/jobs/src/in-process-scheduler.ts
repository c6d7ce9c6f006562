import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, CLOCK, type AppConfig, type Clock } from '@engram/config';
import { QUEUE_NAMES, QueueName, scheduleIntervals } from '@engram/queues';
import { WebhookDispatch } from '@engram/services';
import { FanOutJob } from './fan-out.job';
import type { FanOutReport } from './tenant-job';

/**
 * Background work inside the API process (docs/design.md §7, embedded mode: no `REDIS_URL`):
 * the same jobs as the worker's queues, run by FanOutJob over every tenant on @nestjs/schedule
 * intervals: the sleep cycle
 * (`SLEEP_CYCLE_INTERVAL_MS`), systems consolidation (`SYSTEMS_CONSOLIDATION_INTERVAL_MS`),
 * tiering (`TIERING_INTERVAL_MS`), forgetting (`FORGETTING_INTERVAL_MS`), the embedding backfill
 * (`EMBEDDINGS_BACKFILL_INTERVAL_MS`) and the webhook deliveries that are due
 * (`WEBHOOK_DISPATCH_INTERVAL_MS`: retries, and what a restart interrupted). Each run goes over every tenant, one tenant's failure does
 * not stop the others, and a run never overlaps the previous one of its kind. With `REDIS_URL`
 * set, the worker app runs the queues instead and this runs nothing. A job whose
 * interval is longer than a minute runs first a minute after start, then every interval.
 */
/** The longest wait for a job's first run after start (ms). */
const FIRST_RUN_MS = 60_000;

@Injectable()
export class InProcessScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Scheduler');
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly fanOut: FanOutJob,
    private readonly registry: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly webhooks?: WebhookDispatch,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.REDIS_URL) {
      const intervals = scheduleIntervals(this.config);
      for (const queue of QUEUE_NAMES) this.every(queue, intervals[queue], () => this.run(queue));
      const webhooks = this.webhooks;
      if (webhooks) this.every('webhooks', this.config.WEBHOOK_DISPATCH_INTERVAL_MS, () => webhooks.runDue());
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const name of this.registry.getIntervals()) this.registry.deleteInterval(name);
    for (const name of this.registry.getTimeouts()) this.registry.deleteTimeout(name);
    await Promise.allSettled([...this.running.values()]);
  }

  /** One queue's work over every tenant, now. */
  run(queue: QueueName): Promise<FanOutReport> {
    return this.fanOut.runAll(queue, this.clock.now());
  }

  /** The sleep cycle over every tenant. @returns entries consolidated. */
  async sleepAll(): Promise<number> {
    return (await this.run(QueueName.Consolidation)).totals.consolidated ?? 0;
  }

  /** The forgetting sweep over every tenant. @returns memories soft-forgotten. */
  async forgetAll(): Promise<number> {
    return (await this.run(QueueName.Forgetting)).totals.soft_forgotten ?? 0;
  }

  /**
   * Runs `run` every `ms`, the first time after at most {@link FIRST_RUN_MS}: a process that
   * restarts (a laptop's) would otherwise never reach the hourly or daily runs. A run never
   * overlaps the previous one of its kind.
   */
  private every(job: string, ms: number, run: () => Promise<unknown>): void {
    if (ms <= 0) return;
    const once = () => {
      if (this.running.has(job)) return;
      const p = run()
        .catch((error: unknown) => this.logger.warn(`${job} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.running.delete(job));
      this.running.set(job, p);
    };
    const timer = setInterval(once, ms);
    timer.unref();
    this.registry.addInterval(`engram:${job}`, timer);
    if (ms > FIRST_RUN_MS) {
      const first = setTimeout(once, FIRST_RUN_MS);
      first.unref();
      this.registry.addTimeout(`engram:${job}:first`, first);
    }
  }
}

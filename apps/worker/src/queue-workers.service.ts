import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Queue, Worker, type Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { FanOutJob, JobRegistry, type JobReport } from '@engram/jobs';
import { EngramMetrics } from '@engram/metrics';
import { JOB_OPTIONS, JobName, QUEUE_JOBS, QUEUE_NAMES, QueueName, currentJobName, queuePrefix, scheduleIntervals, tenantJobId, type TenantPayload } from '@engram/queues';
import { RedisConnection } from './redis.provider';

/**
 * One BullMQ worker per queue (docs/background-work.md). Each queue has a job scheduler
 * (`upsertJobScheduler`, registered at start; an interval of 0 removes it) whose FanOutJob lists
 * the tenants and enqueues the queue's job (libs/jobs, named after its class) once per tenant
 * with a deterministic id, so a fan-out that runs twice enqueues each tenant once; a tenant's job
 * carries only ids and the sweep's instant. A job of a name the queue does not run fails.
 * A scheduler that Redis lost (an empty Redis after a restart) is registered again on reconnection.
 * Failures retry with exponential backoff and are kept a week. On shutdown (SIGTERM) the workers
 * stop taking jobs and let the running ones finish; a killed worker's jobs go back to the queue
 * when their lock expires (`WORKER_LOCK_MS`).
 */
@Injectable()
export class QueueWorkers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueueWorkers');
  readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];

  constructor(
    private readonly redis: RedisConnection,
    private readonly registry: JobRegistry,
    private readonly fanOut: FanOutJob,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: EngramMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const intervals = scheduleIntervals(this.config);
    // Each queue and worker has its own connection (RedisConnection.connection): a client shared
    // with them would be closed under a worker still finishing its jobs.
    for (const name of QUEUE_NAMES) {
      const prefix = queuePrefix(this.config, name);
      const queue = new Queue(name, { connection: this.redis.connection(), prefix, defaultJobOptions: JOB_OPTIONS });
      queue.on('error', (error) => this.logger.warn(`${name} queue: ${error.message}`));
      this.queues.set(name, queue);
      const schedulerId = `${name}-every`;
      if (intervals[name] > 0) {
        await this.upsertScheduler(queue, schedulerId, intervals[name]);
        // A Redis that comes back empty (restarted without persistence, a failover to an empty
        // replica) has lost the schedulers with everything else: without them no sweep would run
        // again until the worker restarted, and memories stored meanwhile would never be
        // embedded or consolidated. Each reconnection puts back the ones that are missing.
        (await queue.client).on('ready', () => void this.restoreScheduler(queue, schedulerId, intervals[name]));
      } else {
        await queue.removeJobScheduler(schedulerId);
      }
      const worker = new Worker(name, (job) => this.process(name, job), {
        connection: this.redis.connection(),
        prefix,
        concurrency: this.config.WORKER_CONCURRENCY,
        lockDuration: this.config.WORKER_LOCK_MS,
        stalledInterval: Math.max(1000, Math.floor(this.config.WORKER_LOCK_MS / 2)),
      });
      worker.on('failed', (job, error) => this.logger.warn(`${name} job ${job?.id ?? '?'} failed (attempt ${job?.attemptsMade ?? '?'}): ${error.message}`));
      worker.on('error', (error) => this.logger.warn(`${name} worker: ${error.message}`));
      this.metrics?.watchWorker(name, worker);
      this.workers.push(worker);
    }
  }

  /**
   * Before the shared Redis connection is closed (it closes in `onApplicationShutdown`): a
   * worker whose connection vanished under it retries forever instead of closing.
   */
  async beforeApplicationShutdown(): Promise<void> {
    // close() waits for the jobs in progress to finish and takes no new ones.
    await Promise.allSettled(this.workers.map((w) => w.close()));
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
  }

  private upsertScheduler(queue: Queue, schedulerId: string, every: number) {
    return queue.upsertJobScheduler(schedulerId, { every }, { name: JobName.FanOut, data: {}, opts: JOB_OPTIONS });
  }

  /** Registers the scheduler again when Redis lost it; leaves an existing one (and its next run) alone. */
  private async restoreScheduler(queue: Queue, schedulerId: string, every: number): Promise<void> {
    try {
      if (await queue.getJobScheduler(schedulerId)) return;
      await this.upsertScheduler(queue, schedulerId, every);
      this.logger.warn(`${queue.name}: job scheduler restored (Redis had lost it)`);
    } catch (error) {
      this.logger.warn(`${queue.name}: job scheduler not restored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A fan-out enqueues the tenants' jobs; a tenant job runs the queue's work for its tenant. */
  async process(queue: QueueName, job: Job): Promise<JobReport> {
    const name = currentJobName(queue, job.name);
    if (name === JobName.FanOut) {
      // The instant it was scheduled for: every tenant's sweep computes with the same `now`.
      const at = new Date(job.timestamp + (job.opts.delay ?? 0)).toISOString();
      const tenants = await this.fanOut.tenantsFor(queue);
      const q = this.queues.get(queue) as Queue;
      await q.addBulk(
        tenants.map((tenantId) => ({
          name: QUEUE_JOBS[queue],
          data: { tenantId, at } satisfies TenantPayload,
          opts: { ...JOB_OPTIONS, jobId: tenantJobId(queue, tenantId, String(job.id)) },
        })),
      );
      return { tenants: tenants.length };
    }
    const tenantJob = this.registry.byName(queue, job.name);
    if (!tenantJob) throw new Error(`queue ${queue} runs ${JobName.FanOut} and ${QUEUE_JOBS[queue]}, not ${job.name}`);
    const data = job.data as TenantPayload;
    return tenantJob.run(data.tenantId, new Date(data.at));
  }
}

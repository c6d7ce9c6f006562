import { Injectable } from '@nestjs/common';
import { QUEUE_JOBS, QUEUE_NAMES, currentJobName, type QueueName } from '@engram/queues';
import { AssociationJob } from './association.job';
import { EmbeddingBackfillJob } from './embedding-backfill.job';
import { ForgettingJob } from './forgetting.job';
import { SleepCycleJob } from './sleep-cycle.job';
import { SystemsConsolidationJob } from './systems-consolidation.job';
import type { TenantJob } from './tenant-job';
import { TieringJob } from './tiering.job';

/** The job classes, one per queue. */
export const JOB_CLASSES = [SleepCycleJob, SystemsConsolidationJob, TieringJob, ForgettingJob, EmbeddingBackfillJob, AssociationJob] as const;

/** Thrown at start when the jobs do not cover the queues one to one, each named as libs/queues says. */
export class JobRegistryError extends Error {
  constructor(problems: string[]) {
    super(`background jobs are misconfigured: ${problems.join('; ')}`);
    this.name = 'JobRegistryError';
  }
}

/**
 * Checks that `jobs` give every queue exactly one job whose class name is the queue's job name
 * (libs/queues `QUEUE_JOBS`). @returns the job of each queue
 * @throws JobRegistryError naming each queue without a job, with two, or with a misnamed one
 */
export function jobsByQueue(jobs: readonly TenantJob[]): Map<QueueName, TenantJob> {
  const problems: string[] = [];
  const byQueue = new Map<QueueName, TenantJob>();
  for (const job of jobs) {
    const name = job.constructor.name;
    if (byQueue.has(job.queue)) problems.push(`queue ${job.queue} has two jobs (${byQueue.get(job.queue)?.constructor.name}, ${name})`);
    else if (name !== QUEUE_JOBS[job.queue]) problems.push(`queue ${job.queue} runs ${QUEUE_JOBS[job.queue]}, not ${name}`);
    else byQueue.set(job.queue, job);
  }
  for (const queue of QUEUE_NAMES) if (!byQueue.has(queue) && !problems.some((p) => p.startsWith(`queue ${queue} `))) problems.push(`queue ${queue} has no job`);
  if (problems.length > 0) throw new JobRegistryError(problems);
  return byQueue;
}

/** The job of each queue (docs/background-work.md). Its construction fails, and with it the app's start, when a queue has no job. */
@Injectable()
export class JobRegistry {
  private readonly byQueue: Map<QueueName, TenantJob>;

  constructor(sleep: SleepCycleJob, systems: SystemsConsolidationJob, tiering: TieringJob, forgetting: ForgettingJob, embedding: EmbeddingBackfillJob, associations: AssociationJob) {
    this.byQueue = jobsByQueue([sleep, systems, tiering, forgetting, embedding, associations]);
  }

  /** The queue's per-tenant job. */
  job(queue: QueueName): TenantJob {
    return this.byQueue.get(queue) as TenantJob;
  }

  /**
   * The queue's job by the name a BullMQ job carries (old names of earlier releases included),
   * or undefined when the name is not the queue's job.
   */
  byName(queue: QueueName, name: string): TenantJob | undefined {
    const job = this.job(queue);
    return currentJobName(queue, name) === job.constructor.name ? job : undefined;
  }
}

import type { INestApplicationContext } from '@nestjs/common';
import { Job, Queue, QueueEvents } from 'bullmq';
import { FanOutJob } from '@engram/jobs';
import { JobName, QUEUE_NAMES, QueueName, tenantJobId } from '@engram/queues';
import { TEST_REDIS_URL } from './env';

/**
 * A test's handle on a worker's queues under `prefix`: it enqueues fan-outs and waits for them,
 * and removes every key of the prefix when closed.
 */
export class QueueDriver {
  readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();

  private constructor(private readonly prefix: string) {}

  /** Opens every queue of QUEUE_NAMES and its event stream (ready before it returns). */
  static async open(prefix: string): Promise<QueueDriver> {
    const d = new QueueDriver(prefix);
    for (const name of QUEUE_NAMES) {
      d.queues.set(name, new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix }));
      const e = new QueueEvents(name, { connection: { url: TEST_REDIS_URL }, prefix: d.prefix });
      await e.waitUntilReady();
      d.events.set(name, e);
    }
    return d;
  }

  queue(name: QueueName): Queue {
    return this.queues.get(name) as Queue;
  }

  /** The queue's event stream, for `job.waitUntilFinished`. */
  queueEvents(name: QueueName): QueueEvents {
    return this.events.get(name) as QueueEvents;
  }

  /**
   * Enqueues a fan-out of `queue` with id `jobId` and waits for it and for every tenant job it
   * enqueued (the tenants `worker` would list). @returns the tenant jobs' reports
   */
  async fanOut(worker: INestApplicationContext, queue: QueueName, jobId: string): Promise<Record<string, number>[]> {
    const q = this.queue(queue);
    const e = this.queueEvents(queue);
    const job = await q.add(JobName.FanOut, {}, { jobId });
    await job.waitUntilFinished(e, 30_000);
    const results: Record<string, number>[] = [];
    for (const tenant of await worker.get(FanOutJob).tenantsFor(queue)) {
      const child = await Job.fromId(q, tenantJobId(queue, tenant, jobId));
      if (!child) throw new Error(`no job for tenant ${tenant}`);
      results.push(await child.waitUntilFinished(e, 30_000));
    }
    return results;
  }

  /** Obliterates the queues (every job and key of the prefix) and closes the connections. */
  async close(): Promise<void> {
    for (const q of this.queues.values()) {
      await q.obliterate({ force: true });
      await q.close();
    }
    for (const e of this.events.values()) await e.close();
  }
}

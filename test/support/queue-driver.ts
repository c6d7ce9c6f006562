import type { INestApplicationContext } from '@nestjs/common';
import { Job, Queue, QueueEvents } from 'bullmq';
import { FanOutJob } from '@engram/jobs';
import { JobName, QUEUE_NAMES, QueueConnections, QueueName, queuePrefix, tenantJobId, type RedisConfig } from '@engram/queues';
import { TEST_REDIS_URL } from './env';

/**
 * A test's handle on a worker's queues under `prefix`: it enqueues fan-outs and waits for them,
 * and removes every key of the prefix when closed. On TEST_REDIS_URL, or on the Redis (or Redis
 * Cluster) a config names, through the service's own connection factory and queue prefixes.
 */
export class QueueDriver {
  readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();

  private constructor(private readonly connections: QueueConnections) {}

  /**
   * Opens every queue of QUEUE_NAMES and its event stream (ready before it returns).
   * @param prefix the worker's QUEUE_PREFIX
   * @param redis the worker's REDIS_URL and REDIS_CLUSTER (default: TEST_REDIS_URL, one node)
   */
  static async open(prefix: string, redis: RedisConfig = { REDIS_URL: TEST_REDIS_URL, REDIS_CLUSTER: false }): Promise<QueueDriver> {
    // maxRetriesPerRequest null: the event streams block (BullMQ asks it of a cluster handed to it).
    const d = new QueueDriver(new QueueConnections(redis, { maxRetriesPerRequest: null }));
    for (const name of QUEUE_NAMES) {
      const config = { QUEUE_PREFIX: prefix, REDIS_CLUSTER: redis.REDIS_CLUSTER };
      d.queues.set(name, new Queue(name, { connection: d.connections.connection(), prefix: queuePrefix(config, name) }));
      const e = new QueueEvents(name, { connection: d.connections.connection(), prefix: queuePrefix(config, name) });
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
    await this.connections.close();
  }
}

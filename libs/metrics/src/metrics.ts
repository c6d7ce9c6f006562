import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SystemRepository, TenantDb } from '@engram/db';
import { MEMORY_LAYERS, MEMORY_TIERS } from '@engram/memory';

/** How long one read of the memory counts serves scrapes (ms): a scan of the whole table. */
export const MEMORY_COUNTS_TTL_MS = 10_000;
/** How long a scrape waits for the database or Redis before answering without those series (ms). */
export const COLLECT_TIMEOUT_MS = 5_000;

/** The job states `engram_queue_jobs` reports, as BullMQ's `Queue.getJobCounts` names them. */
export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];

/** One queue's job counts by state, read when Prometheus scrapes. */
export interface QueueDepth {
  queue: string;
  counts: Partial<Record<QueueJobState, number>>;
}

/** Memories by layer and tier over every tenant (security-definer `engram_memory_counts`). */
export interface MemoryCounts {
  rows: { layer: string; tier: string; live: number; forgotten: number }[];
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out after ${COLLECT_TIMEOUT_MS} ms`)), COLLECT_TIMEOUT_MS).unref()),
  ]);
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether an `Authorization` header carries `Bearer <token>`. Compares digests in constant time,
 * so the answer's timing says nothing about how much of the token matched.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  return given !== undefined && timingSafeEqual(sha256(given), sha256(token));
}

/**
 * The Prometheus metrics of one Engram process (API or worker), on a registry of its own rather
 * than prom-client's global one: tests boot several apps in one process, and each must count
 * only its own requests and jobs. Node's default metrics are collected on it with the prefix
 * `engram_`.
 *
 * Memory counts are read when Prometheus scrapes (one query over every tenant, kept
 * {@link MEMORY_COUNTS_TTL_MS}); queue depth too, from the reader the worker installs with
 * {@link readQueueDepth}. A read that fails or times out is logged and its series are left out of
 * that scrape (an absent series, not a stale or zero one), while the rest is still answered.
 */
@Injectable()
export class EngramMetrics {
  private readonly logger = new Logger('Metrics');
  readonly registry = new Registry();

  /** API request latency (s) by method, route template (`unmatched` when no route) and status. */
  readonly httpRequestDuration = new Histogram({
    name: 'engram_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Time (s) a job ran, from `processedOn` to `finishedOn`, completed or failed. */
  readonly jobDuration = new Histogram({
    name: 'engram_job_duration_seconds',
    help: 'Background job run time in seconds (one attempt), by queue and job name.',
    labelNames: ['queue', 'job'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });

  readonly jobsCompleted = new Counter({
    name: 'engram_jobs_completed_total',
    help: 'Background jobs that completed, by queue.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  /** Every failed attempt, including those that will be retried. */
  readonly jobsFailed = new Counter({
    name: 'engram_jobs_failed_total',
    help: 'Background job attempts that failed (retried or not), by queue.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly memoriesSoftForgotten = new Counter({
    name: 'engram_memories_soft_forgotten_total',
    help: 'Memories soft-forgotten by the forgetting sweeps of this process.',
    registers: [this.registry],
  });

  readonly accessesRecorded = new Counter({
    name: 'engram_accesses_recorded_total',
    help: 'Accesses of memories (reads, search hits, recall entries) written by the write-behind recorder of this process.',
    registers: [this.registry],
  });

  readonly accessesDropped = new Counter({
    name: 'engram_accesses_dropped_total',
    help: 'Accesses the write-behind recorder gave up on (its buffer full while the database failed): their reinforcement is lost, nothing else.',
    registers: [this.registry],
  });

  readonly accessesPending = new Gauge({
    name: 'engram_accesses_pending',
    help: 'Accesses waiting in the write-behind recorder of this process (ACCESS_FLUSH_MS).',
    registers: [this.registry],
  });

  readonly memoriesEvicted = new Counter({
    name: 'engram_memories_evicted_total',
    help: 'Memories evicted (deleted, a tombstone kept) by the forgetting sweeps of this process.',
    registers: [this.registry],
  });

  readonly memories = new Gauge({
    name: 'engram_memories',
    help: 'Memories not forgotten, over every tenant, by layer and tier.',
    labelNames: ['layer', 'tier'] as const,
    registers: [this.registry],
    collect: () => this.collectMemories(),
  });

  readonly memoriesForgotten = new Gauge({
    name: 'engram_memories_forgotten',
    help: 'Memories soft-forgotten (kept, out of recall), over every tenant.',
    registers: [this.registry],
    collect: () => this.collectForgotten(),
  });

  readonly queueJobs = new Gauge({
    name: 'engram_queue_jobs',
    help: 'Jobs in each background queue, by state.',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
    collect: () => this.collectQueues(),
  });

  private queueDepth?: () => Promise<QueueDepth[]>;
  private counts?: { at: number; value: Promise<MemoryCounts> };

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly system: SystemRepository,
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'engram_' });
  }

  /** The Prometheus text exposition of every metric, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Installs what `engram_queue_jobs` reads at scrape time (the worker's queues). */
  readQueueDepth(reader: () => Promise<QueueDepth[]>): void {
    this.queueDepth = reader;
  }

  /**
   * Counts a BullMQ worker's jobs: run time and completions or failures by queue. A `failed`
   * event without a job (a stalled job over its limit) still counts as a failure.
   */
  watchWorker(queue: string, worker: Worker): void {
    const observe = (job: Job) => {
      if (job.processedOn === undefined) return;
      const seconds = ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000;
      this.jobDuration.observe({ queue, job: job.name }, Math.max(0, seconds));
    };
    worker.on('completed', (job) => {
      observe(job);
      this.jobsCompleted.inc({ queue });
    });
    worker.on('failed', (job) => {
      if (job) observe(job);
      this.jobsFailed.inc({ queue });
    });
  }

  /**
   * Every tenant's memory counts, read at most once per {@link MEMORY_COUNTS_TTL_MS}; concurrent
   * scrapes (and the two gauges of one scrape) share one query. A failed read is not kept.
   * Rejects when the query fails or takes over {@link COLLECT_TIMEOUT_MS}.
   */
  memoryCounts(): Promise<MemoryCounts> {
    const now = performance.now();
    if (this.counts && now - this.counts.at < MEMORY_COUNTS_TTL_MS) return this.counts.value;
    const value = withTimeout(
      this.tenantDb.runWithoutTenant((db) => this.system.memoryCounts(db)),
      'memory counts',
    ).then((rows) => ({ rows }));
    const entry = { at: now, value };
    this.counts = entry;
    value.catch(() => {
      if (this.counts === entry) this.counts = undefined;
    });
    return value;
  }

  // Each gauge resets and fills only itself: prom-client collects the metrics of one scrape
  // concurrently, and both gauges share one cached read.
  private async collectMemories(): Promise<void> {
    this.memories.reset();
    const counts = await this.countsOrNothing();
    if (!counts) return;
    // Every layer × tier, zeros included: a count that drops to nothing reads 0, not absent.
    for (const layer of MEMORY_LAYERS) for (const tier of MEMORY_TIERS) this.memories.set({ layer, tier }, 0);
    for (const r of counts.rows) this.memories.set({ layer: r.layer, tier: r.tier }, r.live);
  }

  private async collectForgotten(): Promise<void> {
    this.memoriesForgotten.reset();
    const counts = await this.countsOrNothing();
    if (counts) this.memoriesForgotten.set(counts.rows.reduce((sum, r) => sum + r.forgotten, 0));
  }

  private async countsOrNothing(): Promise<MemoryCounts | undefined> {
    try {
      return await this.memoryCounts();
    } catch (error) {
      this.logger.warn(`memory counts left out of this scrape: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  private async collectQueues(): Promise<void> {
    this.queueJobs.reset();
    if (!this.queueDepth) return;
    try {
      for (const { queue, counts } of await withTimeout(this.queueDepth(), 'queue depth')) {
        for (const state of QUEUE_JOB_STATES) this.queueJobs.set({ queue, state }, counts[state] ?? 0);
      }
    } catch (error) {
      this.logger.warn(`queue depth left out of this scrape: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

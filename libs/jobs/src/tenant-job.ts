import type { QueueName } from '@engram/queues';

/** What one tenant's job did: counts by what changed. */
export type JobReport = Record<string, number>;

/** A run over every tenant: summed counts, and the tenants whose job failed. */
export interface FanOutReport {
  tenants: number;
  failed: string[];
  totals: JobReport;
}

/**
 * The background work of one queue for one tenant (docs/design.md §7), run by the worker (one
 * BullMQ job per tenant) and by the in-process scheduler of embedded mode alike. Each job is a
 * class whose name is the BullMQ job name (libs/queues `QUEUE_JOBS`).
 */
export interface TenantJob {
  readonly queue: QueueName;
  /**
   * One tenant's work as of `at` (the sweep's `now`: a job carries it, so a retry computes the
   * same state). Idempotent: run twice, it changes nothing the second time.
   * @throws what the database or a provider throws (the job is retried)
   */
  run(tenantId: string, at: Date): Promise<JobReport>;
  /** The tenants a fan-out should enqueue, of all of them (default: all). */
  tenantsToRun?(all: string[]): Promise<string[]>;
}

/** Rows per statement of a sweep: large enough to be set-based, small enough to keep locks short. */
export const SWEEP_BATCH = 5000;

/** Runs one batch after another until a batch comes back short. @returns rows changed in all */
export async function untilShort(batch: () => Promise<number>, size = SWEEP_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await batch();
    total += n;
    if (n < size) return total;
  }
}

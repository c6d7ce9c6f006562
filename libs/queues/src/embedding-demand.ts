import { ThrottledWarning } from './throttled-warning';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { JOB_OPTIONS, JobName, QueueName, queuePrefix, type TenantPayload } from './queues';
import { QueueConnections } from './redis-connections';

const UNQUEUED = 'embedding jobs cannot be enqueued (the scheduled sweep will catch up)';

/** Demands of one tenant within this window (ms) make one job: a burst of writes embeds once. */
export const EMBEDDING_DEMAND_WINDOW_MS = 1000;

/** The id of a tenant's on-demand embedding job for the window holding `at` (deduplicates bursts). */
export function embeddingDemandJobId(tenantId: string, at: Date): string {
  return `${QueueName.Embedding}.${tenantId}.demand-${Math.floor(at.getTime() / EMBEDDING_DEMAND_WINDOW_MS)}`;
}

/**
 * The `embedding` queue's on-demand producer (issue "background work" §1: embedding runs on
 * demand): when a write stores a memory without its vector (the provider was slow or down), the
 * API enqueues the tenant's embedding job, and a worker embeds it at once instead of at the next
 * scheduled sweep. Only with REDIS_URL; embedded mode's in-process backfill needs none.
 * Never fails or delays a write: with Redis unreachable the job is not enqueued (the scheduled
 * sweep, every EMBEDDINGS_BACKFILL_INTERVAL_MS, still finds the memory) and a warning is logged,
 * at most once a minute.
 */
@Injectable()
export class EmbeddingDemand implements OnApplicationShutdown {
  private readonly logger = new Logger('EmbeddingDemand');
  private readonly queue: Queue | undefined;
  private readonly connections: QueueConnections | undefined;
  private readonly warning = new ThrottledWarning(this.logger);

  constructor(@Optional() @Inject(APP_CONFIG) config?: AppConfig) {
    if (!config?.REDIS_URL) return;
    // Fail fast while Redis is away (no offline queue, few retries): a write must not wait on it.
    this.connections = new QueueConnections(config, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.queue = new Queue(QueueName.Embedding, { connection: this.connections.connection(), prefix: queuePrefix(config, QueueName.Embedding) });
    this.queue.on('error', (error) => this.warning.warn(UNQUEUED, error));
  }

  /** Whether demands go anywhere (REDIS_URL is set). */
  get enabled(): boolean {
    return this.queue !== undefined;
  }

  /**
   * Asks a worker to embed `tenantId`'s pending memories. Resolves when enqueued or given up;
   * never rejects.
   */
  async pending(tenantId: string, at: Date): Promise<void> {
    if (!this.queue) return;
    try {
      await this.queue.add(JobName.EmbeddingBackfill, { tenantId, at: at.toISOString() } satisfies TenantPayload, {
        ...JOB_OPTIONS,
        jobId: embeddingDemandJobId(tenantId, at),
      });
    } catch (error) {
      this.warning.warn(UNQUEUED, error);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    await this.connections?.close();
  }
}

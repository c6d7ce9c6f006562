import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '@engram/config';
import { EmbeddingsRepository, TenantDb, TenantsRepository, type ComputedVector, type PendingEmbedding } from '@engram/db';
import { EMBEDDER, EmbeddingError, RequestEmbedder, type Embedder } from '@engram/embeddings';
import { QueueName } from '@engram/queues';
import type { JobReport, TenantJob } from './tenant-job';

/** A text any embeddings provider accepts. */
const CANARY = 'memory';
/** Memories embedded per batch. */
const BATCH = 256;
/** A memory whose text the provider refused this many times is marked failed (until the model changes). */
const MAX_ATTEMPTS = 3;
/**
 * Tenants whose memories this process remembers having checked against the current model
 * (bounded: one forgotten is checked again, which costs one statement).
 */
const MODEL_CHECKED_TENANTS = 100_000;

/**
 * The embedding backfill (queue `embedding`, every few seconds and on demand; docs/design.md §6):
 * embeds each tenant's memories waiting for a vector, in batches of 256, and re-embeds memories
 * of another model after a change of model. A text the provider refuses three times is marked
 * `failed` (full text still finds it); a provider that refuses everything or is down pauses the
 * backfill without charging any memory. Reports `{embedded}`.
 */
@Injectable()
export class EmbeddingBackfillJob implements TenantJob {
  readonly queue = QueueName.Embedding;
  private readonly logger = new Logger('EmbeddingBackfill');
  /** Tenants whose memories were last checked against this model (tenant → model). */
  private readonly modelChecked = new LRUCache<string, string>({ max: MODEL_CHECKED_TENANTS });

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly embeddings: EmbeddingsRepository,
    private readonly tenants: TenantsRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly requests?: RequestEmbedder,
  ) {}

  async run(tenantId: string): Promise<JobReport> {
    return { embedded: await this.embedTenant(tenantId) };
  }

  /**
   * The tenants with memories waiting, and those not yet checked against the current model:
   * two look-ups, not one per tenant (this fan-out runs every few seconds).
   */
  async tenantsToRun(all: string[]): Promise<string[]> {
    const pending = new Set(await this.tenantDb.runWithoutTenant((db) => this.tenants.withPendingEmbeddings(db)));
    return all.filter((id) => pending.has(id) || this.needsModelCheck(id));
  }

  /** One pass over every tenant (embedded mode, tests). @returns how many memories got a vector */
  async runOnce(): Promise<number> {
    let embedded = 0;
    for (const id of await this.tenantDb.runWithoutTenant((db) => this.tenants.allIds(db))) {
      try {
        embedded += await this.embedTenant(id);
      } catch (error) {
        if (error instanceof EmbeddingError) {
          // The provider fails everyone alike: one line, and the next pass tries again.
          this.logger.warn(`embedding backfill paused (${error.reason}): ${error.message}`);
          break;
        }
        // One tenant's failure must not stop the others (docs/design.md §7).
        this.logger.warn(`backfill of tenant ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return embedded;
  }

  /** True when this process has not yet checked the tenant's memories against the current model. */
  needsModelCheck(tenantId: string): boolean {
    return this.modelChecked.get(tenantId) !== this.embedder.model;
  }

  /** Embeds one tenant's waiting memories. @returns how many got a vector */
  async embedTenant(tenantId: string): Promise<number> {
    const model = this.embedder.model;
    if (this.needsModelCheck(tenantId)) {
      // Vectors of another model live in another space. The model only changes with the
      // configuration, so once per tenant per process is enough; and a restart (after fixing
      // the provider's configuration) gives `failed` memories another chance.
      await this.tenantDb.run(tenantId, (tx) => this.embeddings.resetOtherModels(tx, model));
      await this.tenantDb.run(tenantId, (tx) => this.embeddings.retryFailed(tx));
      this.modelChecked.set(tenantId, model);
    }
    let total = 0;
    for (;;) {
      const batch = await this.tenantDb.run(tenantId, (tx) => this.embeddings.pending(tx, BATCH));
      if (batch.length === 0) return total;
      const vectors = await this.embedBatch(tenantId, batch);
      const now = this.clock.now();
      await this.tenantDb.run(tenantId, (tx) => this.embeddings.store(tx, vectors, model, now));
      total += vectors.length;
      if (batch.length < BATCH) return total;
    }
  }

  /**
   * Vectors for a batch; texts the provider refuses are left out (and counted against).
   * @throws EmbeddingError when the provider is down or refuses us whatever the text (an outage
   *   or its configuration): nothing is counted, the next pass tries again
   */
  private async embedBatch(tenantId: string, batch: PendingEmbedding[]): Promise<ComputedVector[]> {
    try {
      const vectors = await this.embedder.embed(batch.map((m) => m.content));
      this.requests?.providerRecovered();
      return batch.map((m, i) => ({ id: m.id, hash: m.content_hash, vector: vectors[i] as number[] }));
    } catch (error) {
      if (!(error instanceof EmbeddingError) || error.reason !== 'input') throw error;
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        return [...(await this.embedBatch(tenantId, batch.slice(0, half))), ...(await this.embedBatch(tenantId, batch.slice(half)))];
      }
      // Is it this text, or does the provider refuse everything (e.g. a field it does not know)?
      // A text it must accept tells: if that is refused too, nothing is charged to the memory.
      try {
        await this.embedder.embed([CANARY]);
      } catch (canary) {
        if (canary instanceof EmbeddingError) throw new EmbeddingError(`the provider refuses every text: ${canary.message}`, canary.reason === 'outage' ? 'outage' : 'config');
        throw canary;
      }
      this.logger.warn(`embedding of memory ${batch[0]?.id} refused: ${error.message}`);
      await this.tenantDb.run(tenantId, (tx) => this.embeddings.countRefusal(tx, batch.map((m) => m.id), MAX_ATTEMPTS));
      return [];
    }
  }
}

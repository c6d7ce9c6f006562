import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { sql } from 'kysely';
import { CLOCK, type Clock } from '@engram/config';
import { TenantDb, tenantIds, vectorLiteral } from '@engram/db';
import { EMBEDDER, EmbeddingError, RequestEmbedder, type Embedder } from '@engram/embeddings';

/** A text any embeddings provider accepts. */
const CANARY = 'memory';
/** Memories embedded per batch. */
const BATCH = 256;
/** A memory whose text the provider refused this many times is marked failed (until the model changes). */
const MAX_ATTEMPTS = 3;

interface Pending {
  id: string;
  content: string;
  content_hash: string;
}

@Injectable()
export class EmbeddingBackfill {
  private readonly logger = new Logger('EmbeddingBackfill');
  /** Tenants whose memories were last checked against this model. */
  private readonly modelChecked = new Map<string, string>();

  constructor(
    private readonly tenantDb: TenantDb,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly requests?: RequestEmbedder,
  ) {}

  /** One pass over every tenant. @returns how many memories got a vector. */
  async runOnce(): Promise<number> {
    let embedded = 0;
    for (const id of await tenantIds(this.tenantDb)) {
      try {
        embedded += await this.runForTenant(id);
      } catch (error) {
        if (error instanceof EmbeddingError) {
          // The provider fails everyone alike: one line, and the next pass tries again.
          this.logger.warn(`embedding backfill paused (${error.reason}): ${error.message}`);
          break;
        }
        // One tenant's failure must not stop the others (DESIGN §7).
        this.logger.warn(`backfill of tenant ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return embedded;
  }

  /** True when this process has not yet checked the tenant's memories against the current model. */
  needsModelCheck(tenantId: string): boolean {
    return this.modelChecked.get(tenantId) !== this.embedder.model;
  }

  /** Embeds one tenant's waiting memories. @returns how many got a vector. */
  async runForTenant(tenantId: string): Promise<number> {
    const model = this.embedder.model;
    if (this.modelChecked.get(tenantId) !== model) {
      // Vectors of another model live in another space: comparing a query with them is noise, so
      // they are dropped (full text still finds those memories) and embedded anew. The model only
      // changes with the configuration, so once per tenant per process is enough; and a restart
      // (after fixing the provider's configuration) gives `failed` memories another chance.
      await this.tenantDb.run(tenantId, ({ trx }) =>
        sql`update memories set embedding = null, embedding_model = ${model}, embedding_status = 'pending', embedding_attempts = 0, embedded_at = null
            -- Archived memories have no vector to redo: they are embedded with the model of the day when they come back.
            where tenant_id = ${tenantId} and embedding_model is distinct from ${model} and embedding_status <> 'archived'`.execute(trx),
      );
      await this.tenantDb.run(tenantId, ({ trx }) =>
        sql`update memories set embedding_status = 'pending', embedding_attempts = 0
            where tenant_id = ${tenantId} and embedding_status = 'failed'`.execute(trx),
      );
      this.modelChecked.set(tenantId, model);
    }
    let total = 0;
    for (;;) {
      const batch = await this.tenantDb.run(tenantId, ({ trx }) =>
        trx
          .selectFrom('memories')
          .select(['id', 'content', 'content_z', 'content_hash'])
          .where('tenant_id', '=', tenantId)
          .where('embedding_status', '=', 'pending')
          .orderBy('id')
          .limit(BATCH)
          .execute(),
      );
      if (batch.length === 0) return total;
      const vectors = await this.embedBatch(tenantId, batch);
      const now = this.clock.now();
      await this.tenantDb.run(tenantId, ({ trx }) =>
        sql`update memories m set embedding = v.embedding::vector, embedding_model = ${model}, embedding_status = 'ready', embedded_at = ${now}, embedding_attempts = 0
            from unnest(${vectors.map((v) => v.id)}::uuid[], ${vectors.map((v) => vectorLiteral(v.vector))}::text[], ${vectors.map((v) => v.hash)}::text[]) as v(id, embedding, hash)
            -- A write that changed the content meanwhile keeps its own pending state: this vector is of the old text.
            where m.tenant_id = ${tenantId} and m.id = v.id and m.embedding_status = 'pending' and m.content_hash = v.hash`.execute(trx),
      );
      total += vectors.length;
      if (batch.length < BATCH) return total;
    }
  }

  /**
   * Vectors for a batch; texts the provider refuses are left out (and counted against).
   * @throws EmbeddingError when the provider is down or refuses us whatever the text (an outage
   *   or its configuration): nothing is counted, the next pass tries again
   */
  private async embedBatch(tenantId: string, batch: Pending[]): Promise<{ id: string; hash: string; vector: number[] }[]> {
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
      await this.tenantDb.run(tenantId, ({ trx }) =>
        sql`update memories set embedding_attempts = embedding_attempts + 1,
              embedding_status = case when embedding_attempts + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end
            where tenant_id = ${tenantId} and id = any(${batch.map((m) => m.id)}::uuid[])`.execute(trx),
      );
      return [];
    }
  }
}

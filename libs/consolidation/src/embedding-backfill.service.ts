import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { CLOCK, type Clock } from '@engram/config';
import { TenantDb, tenantIds, vectorLiteral } from '@engram/db';
import { EMBEDDER, type Embedder } from '@engram/embeddings';

/** Memories embedded per batch. */
const BATCH = 256;
/** A memory whose embedding failed this many times is marked failed (and left for a model change). */
const MAX_ATTEMPTS = 5;

/**
 * Embeds what writes could not (provider slow or down) and re-embeds after a change of model:
 * per tenant, memories whose status is not `ready` or whose model is not the configured one, in
 * batches. Idempotent: a second run finds nothing to do.
 */
@Injectable()
export class EmbeddingBackfill {
  private readonly logger = new Logger('EmbeddingBackfill');

  constructor(
    private readonly tenantDb: TenantDb,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One pass over every tenant. @returns how many memories got a vector. */
  async runOnce(): Promise<number> {
    let embedded = 0;
    for (const id of await tenantIds(this.tenantDb)) {
      try {
        embedded += await this.runForTenant(id);
      } catch (error) {
        // One tenant's failure must not stop the others (DESIGN §7).
        this.logger.warn(`backfill of tenant ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return embedded;
  }

  /** Embeds one tenant's waiting memories. @returns how many got a vector. */
  async runForTenant(tenantId: string): Promise<number> {
    const model = this.embedder.model;
    // A changed model turns every older vector into pending work.
    await this.tenantDb.run(tenantId, ({ trx }) =>
      sql`update memories set embedding_status = 'pending', embedding_attempts = 0
          where tenant_id = ${tenantId} and embedding_status = 'ready' and embedding_model is distinct from ${model}`.execute(trx),
    );
    let total = 0;
    for (;;) {
      const batch = await this.tenantDb.run(tenantId, ({ trx }) =>
        trx
          .selectFrom('memories')
          .select(['id', 'content'])
          .where('tenant_id', '=', tenantId)
          .where('embedding_status', '=', 'pending')
          .orderBy('id')
          .limit(BATCH)
          .execute(),
      );
      if (batch.length === 0) return total;
      let vectors: number[][];
      try {
        vectors = await this.embedder.embed(batch.map((m) => m.content));
      } catch (error) {
        await this.tenantDb.run(tenantId, ({ trx }) =>
          sql`update memories set embedding_attempts = embedding_attempts + 1,
                embedding_status = case when embedding_attempts + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end
              where tenant_id = ${tenantId} and id = any(${batch.map((m) => m.id)}::uuid[])`.execute(trx),
        );
        throw error;
      }
      const now = this.clock.now();
      await this.tenantDb.run(tenantId, ({ trx }) =>
        sql`update memories m set embedding = v.embedding::vector, embedding_model = ${model}, embedding_status = 'ready', embedded_at = ${now}, embedding_attempts = 0
            from unnest(${batch.map((m) => m.id)}::uuid[], ${vectors.map(vectorLiteral)}::text[]) as v(id, embedding)
            where m.tenant_id = ${tenantId} and m.id = v.id and m.embedding_status = 'pending'`.execute(trx),
      );
      total += batch.length;
      if (batch.length < BATCH) return total;
    }
  }
}

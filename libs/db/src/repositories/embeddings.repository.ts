import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import { vectorLiteral } from '../vectors';

/** A memory waiting for its vector. */
export interface PendingEmbedding {
  id: string;
  /** The full text (inflated when compacted). */
  content: string;
  content_hash: string;
}

/** A vector computed for the text whose hash it carries. */
export interface ComputedVector {
  id: string;
  hash: string;
  vector: readonly number[];
}

/**
 * The vectors of memories (docs/design.md §6): what the embedding backfill reads and writes.
 * `embedding_status`: `pending` (waiting), `ready`, `failed` (refused `maxAttempts` times),
 * `archived` (out of the vector index with its tier).
 */
@Injectable()
export class EmbeddingsRepository {
  /**
   * Drops vectors of another model (another space: comparing with them is noise) so they are
   * embedded anew; archived memories have none to redo and keep their status.
   * @returns how many memories now wait
   */
  @GenerateSql({ params: ['model-1'] })
  async resetOtherModels(tx: TenantTx, model: string): Promise<number> {
    const result = await sql`
      update memories set embedding = null, embedding_model = ${model}, embedding_status = 'pending', embedding_attempts = 0, embedded_at = null
      where tenant_id = ${tx.tenantId} and embedding_model is distinct from ${model} and embedding_status <> 'archived'`.execute(tx.trx);
    return Number(result.numAffectedRows ?? 0n);
  }

  /** Gives memories the provider refused another chance (after a restart, or a change of model). */
  @GenerateSql()
  async retryFailed(tx: TenantTx): Promise<number> {
    const result = await sql`
      update memories set embedding_status = 'pending', embedding_attempts = 0
      where tenant_id = ${tx.tenantId} and embedding_status = 'failed'`.execute(tx.trx);
    return Number(result.numAffectedRows ?? 0n);
  }

  /** Up to `limit` memories waiting for a vector, in id order. */
  @GenerateSql({ params: [SAMPLE.limit] })
  pending(tx: TenantTx, limit: number): Promise<PendingEmbedding[]> {
    return tx.trx
      .selectFrom('memories')
      .select(['id', 'content', 'content_z', 'content_hash'])
      .where('tenant_id', '=', tx.tenantId)
      .where('embedding_status', '=', 'pending')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Stores vectors (status `ready`). A write that changed a memory's content meanwhile keeps its
   * own pending state: a vector is stored only while the content hash is the one it was computed for.
   */
  @GenerateSql({ params: [[{ id: SAMPLE.uuid, hash: 'h', vector: [0.5, 0.25] }], 'model-1', SAMPLE.date] })
  async store(tx: TenantTx, vectors: readonly ComputedVector[], model: string, at: Date): Promise<void> {
    await sql`
      update memories m set embedding = v.embedding::halfvec, embedding_model = ${model}, embedding_status = 'ready', embedded_at = ${at}, embedding_attempts = 0
      from unnest(${vectors.map((v) => v.id)}::uuid[], ${vectors.map((v) => vectorLiteral(v.vector))}::text[], ${vectors.map((v) => v.hash)}::text[]) as v(id, embedding, hash)
      where m.tenant_id = ${tx.tenantId} and m.id = v.id and m.embedding_status = 'pending' and m.content_hash = v.hash`.execute(tx.trx);
  }

  /** Counts a refusal of these memories' texts; at `maxAttempts` they are marked `failed` (until the model changes). */
  @GenerateSql({ params: [[SAMPLE.uuid], 3] })
  async countRefusal(tx: TenantTx, ids: readonly string[], maxAttempts: number): Promise<void> {
    await sql`
      update memories set embedding_attempts = embedding_attempts + 1,
        embedding_status = case when embedding_attempts + 1 >= ${maxAttempts} then 'failed' else 'pending' end
      where tenant_id = ${tx.tenantId} and id = any(${ids}::uuid[])`.execute(tx.trx);
  }
}

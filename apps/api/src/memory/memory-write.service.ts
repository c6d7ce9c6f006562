import { Inject, Injectable, Optional } from '@nestjs/common';
import { EmbeddingDemand } from '@engram/queues';
import { CLOCK, type Clock } from '@engram/config';
import { MemoriesRepository, PG_FOREIGN_KEY_VIOLATION, TenantDb, pgConstraint, pgErrorCode, type Embedding } from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { ImportanceScorer } from '@engram/llm';
import { withExplicitSaveFloor, type ImportanceResult, type LifecycleConfig } from '@engram/memory';
import { AppError, LifecycleSettings, MemoryWriter, MindAccess, type MemoryScope, type WriteResult, type WriteStatus } from '@engram/services';
import type { UpdateMemoryInput, UpsertMemoryInput } from './memory.dto';
import { requireVersion, type VersionPrecondition } from './version-precondition';
import { memoryView, type MemoryView } from './memory.view';

export type { WriteStatus };

/** The foreign key from a memory to its mind (tenant, mind): its violation means the mind is not the tenant's. */
const MEMORY_MIND_FK = 'memories_tenant_id_mind_id_fkey';

/** `write`, with a write into a mind that does not exist (or is another tenant's) answered 404 `mind`. */
async function mindMustExist<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (pgErrorCode(error) === PG_FOREIGN_KEY_VIOLATION && pgConstraint(error) === MEMORY_MIND_FK) throw AppError.notFound('mind');
    throw error;
  }
}

/** Memories scored at once (the scorer may call an LLM). */
const SCORING_BATCH = 8;

/**
 * The API's writes of memories (seed 002 "메모리 라이프사이클"): upsert by (category, key),
 * batch, update, verification, deletion. Each scores and embeds before its transaction (the
 * scorer and the embedder may be remote), then writes through the services' MemoryWriter, which
 * applies the lifecycle rules and records every version.
 */
@Injectable()
export class MemoryWriteService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
    private readonly writer: MemoryWriter,
    private readonly settings: LifecycleSettings,
    private readonly scorer: ImportanceScorer,
    private readonly embedder: RequestEmbedder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly embeddingDemand?: EmbeddingDemand,
  ) {}

  /**
   * Creates the memory or overwrites the one with the same (category, key); never duplicates.
   * With `precondition` (If-Match) the key's memory must exist at a version it names.
   * @throws AppError 404 for a mind that is not the caller's; 400 when `source` disagrees with the credential; 412 for a precondition not met
   */
  async upsert(scope: MemoryScope, input: UpsertMemoryInput, precondition?: VersionPrecondition): Promise<{ memory: MemoryView; status: WriteStatus }> {
    this.checkSource(input, scope, 'source');
    const config = await this.config(scope);
    const importance = await this.importanceOf(input, config);
    const embedding = await this.embed(input.content);
    // The mind is checked by the insert's foreign key, not by a read of its own (one statement
    // fewer a write): a mind gone or not the tenant's answers 404 all the same.
    const result = await mindMustExist(
      this.tenantDb.run(scope.tenantId, async (tx) => {
        if (precondition) {
          await this.minds.require(tx, scope);
          requireVersion(precondition, (await this.memories.findByKeyForUpdate(tx, scope.mindId, input.category, input.key))?.version);
        }
        return this.writer.upsert(tx, scope, input, importance, embedding, this.clock.now(), config);
      }),
    );
    this.demandEmbedding(scope.tenantId, [embedding.vector]);
    return { memory: memoryView(result.memory), status: result.status };
  }

  /** Upserts up to 500 memories in one transaction: all are stored or none. */
  async batch(scope: MemoryScope, items: UpsertMemoryInput[]) {
    items.forEach((item, i) => this.checkSource(item, scope, `items[${i}].source`));
    const config = await this.config(scope);
    const scores: ImportanceResult[] = [];
    // Scoring may call an LLM: a few at a time, and before the transaction holds a connection.
    for (let i = 0; i < items.length; i += SCORING_BATCH) {
      scores.push(...(await Promise.all(items.slice(i, i + SCORING_BATCH).map((item) => this.importanceOf(item, config)))));
    }
    const embedded = await this.embedder.tryEmbed(items.map((item) => item.content));
    const results = await mindMustExist(this.tenantDb.run(scope.tenantId, async (tx) => {
      const now = this.clock.now();
      const out: WriteResult[] = new Array<WriteResult>(items.length);
      for (const i of lockOrder(items)) {
        out[i] = await this.writer.upsert(tx, scope, items[i] as UpsertMemoryInput, scores[i] as ImportanceResult, { model: embedded.model, vector: embedded.vectors[i] ?? null }, now, config);
      }
      return out;
    }));
    this.demandEmbedding(scope.tenantId, items.map((_, i) => embedded.vectors[i]));
    const count = (status: WriteStatus) => results.filter((r) => r.status === status).length;
    return {
      created: count('created'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      items: results.map(({ memory, status }) => ({ id: memory.id, category: memory.category, key: memory.key, version: memory.version, status })),
    };
  }

  /** Changes fields of a memory by id: `updated` (a new version) or `unchanged`. @throws AppError 404; 412 when `precondition` (If-Match) names another version */
  async update(scope: MemoryScope, id: string, input: UpdateMemoryInput, precondition?: VersionPrecondition): Promise<{ memory: MemoryView; status: WriteStatus }> {
    const config = await this.config(scope);
    const importance = input.content !== undefined || input.importance !== undefined ? await this.importanceOf({ ...input, content: input.content }, config) : undefined;
    const embedding = input.content === undefined ? undefined : await this.embed(input.content);
    const written = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
      if (!current) throw AppError.notFound('memory');
      requireVersion(precondition, current.version);
      return this.writer.edit(tx, scope, current, input, { importance, embedding, now: this.clock.now(), config, upsert: false });
    });
    if (embedding) this.demandEmbedding(scope.tenantId, [embedding.vector]);
    return { memory: memoryView(written.memory), status: written.status };
  }

  /** Marks a memory verified by a person (seed 002 "검증"); idempotent. @throws AppError 404; 412 when `precondition` names another version */
  async verify(scope: MemoryScope, id: string, precondition?: VersionPrecondition): Promise<MemoryView> {
    const memory = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
      if (!current) throw AppError.notFound('memory');
      requireVersion(precondition, current.version);
      return this.writer.verify(tx, current, scope.actor, this.clock.now());
    });
    return memoryView(memory);
  }

  /** Deletes a memory and its history (announced to webhooks as `memory.deleted`). @throws AppError 404; 412 when `precondition` names another version */
  async delete(scope: MemoryScope, id: string, precondition?: VersionPrecondition): Promise<void> {
    const deleted = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      if (precondition) {
        const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
        if (!current) return false;
        requireVersion(precondition, current.version);
      }
      return this.writer.delete(tx, scope.mindId, id, this.clock.now());
    });
    if (!deleted) throw AppError.notFound('memory');
  }

  private config(scope: MemoryScope): Promise<LifecycleConfig> {
    return this.settings.forTenant(scope.tenantId);
  }

  /** The content's vector within `EMBEDDINGS_WAIT_MS`, else none (the backfill embeds it). */
  private async embed(content: string): Promise<Embedding> {
    const embedded = await this.embedder.tryEmbed([content]);
    return { model: embedded.model, vector: embedded.vectors[0] ?? null };
  }

  /** A memory stored without its vector: with a worker (REDIS_URL), ask it to embed now. */
  private demandEmbedding(tenantId: string, vectors: readonly (readonly number[] | null | undefined)[]): void {
    if (this.embeddingDemand?.enabled && vectors.some((v) => !v)) void this.embeddingDemand.pending(tenantId, this.clock.now());
  }

  /**
   * The caller's importance when given, else the scorer's (seed 001 §1), at least the explicit-save
   * floor: a keyed write is an explicit save (docs/design.md §4).
   */
  private async importanceOf(input: { content?: string; importance?: number; category?: string; priority?: UpsertMemoryInput['priority'] }, config: LifecycleConfig): Promise<ImportanceResult> {
    if (input.importance !== undefined) return { score: input.importance, path: 'caller' };
    const scored = await this.scorer.score(input.content ?? '', { category: input.category, priority: input.priority }, config);
    return withExplicitSaveFloor(scored, config.importance.explicit_save_floor);
  }

  private checkSource(input: { source?: string }, scope: MemoryScope, field: string): void {
    if (input.source !== undefined && input.source !== scope.writer) {
      throw AppError.badField(field, `is set from the credential: ${scope.writer} for this request`);
    }
  }
}

/**
 * The order a batch locks its rows in: (category, key), not the request's. Two batches naming
 * the same keys in different orders would otherwise deadlock (test/concurrency.test.ts). The
 * sort is stable, so a key given twice is still written in request order; answers keep request order.
 */
function lockOrder(items: readonly UpsertMemoryInput[]): number[] {
  return items
    .map((_, i) => i)
    .sort((a, b) => {
      const x = items[a] as UpsertMemoryInput;
      const y = items[b] as UpsertMemoryInput;
      return x.category < y.category ? -1 : x.category > y.category ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : a - b;
    });
}

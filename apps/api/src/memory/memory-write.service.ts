import { Inject, Injectable, Optional } from '@nestjs/common';
import { EmbeddingDemand } from '@engram/queues';
import { CLOCK, type Clock } from '@engram/config';
import {
  LifecycleSettings,
  MemoriesRepository,
  MemoryVersionsRepository,
  TenantDb,
  embeddingColumns,
  newMemoryRow,
  type MemoryRow,
  type MemoryUpdate,
  type TenantTx,
} from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { ImportanceScorer } from '@engram/llm';
import {
  contentHash,
  currentRetention,
  emotionalEncoding,
  normalizeTags,
  provenanceOf,
  reencodeLifecycle,
  withExplicitSaveFloor,
  type ImportanceResult,
  type LifecycleConfig,
} from '@engram/memory';
import { AppError } from '../common/app-error';
import type { UpdateMemoryInput, UpsertMemoryInput } from './memory.dto';
import type { MemoryScope } from './memory-scope';
import { memoryView, type MemoryView } from './memory.view';
import { MindAccess } from './mind-access';

export type WriteStatus = 'created' | 'updated' | 'unchanged';

type Embedding = { model: string; vector: number[] | null };

export interface WriteResult {
  memory: MemoryRow;
  status: WriteStatus;
}

/** Canonical JSON (keys sorted) so payload comparison ignores key order, as jsonb does. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const sameArray = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/**
 * The change a write makes to a stored memory, or `undefined` when it changes nothing.
 * Omitted fields keep their stored values (except that an upsert of an expired memory without
 * `expires_at` clears the expiry); provenance follows {@link provenanceOf}; new content or a new
 * importance re-encodes the lifecycle (libs/memory `reencodeLifecycle`).
 */
function changeOf(
  current: MemoryRow,
  input: UpdateMemoryInput,
  importance: ImportanceResult | undefined,
  scope: MemoryScope,
  now: Date,
  config: LifecycleConfig,
  upsert: boolean,
  embedding: Embedding | undefined,
): MemoryUpdate | undefined {
  const content = input.content ?? current.content;
  // Storing an expired key again, without saying when it expires, brings it back.
  const revive = upsert && input.expires_at === undefined && current.expires_at !== null && current.expires_at.getTime() <= now.getTime();
  const hash = input.content === undefined ? current.content_hash : contentHash(content);
  const provenance = provenanceOf(scope.writer, input.confidence, {
    source: current.source,
    verified: current.verified,
    confidence: current.confidence,
    contentUnchanged: hash === current.content_hash,
  });
  const next = {
    content,
    content_hash: hash,
    tags: input.tags ? normalizeTags(input.tags) : current.tags,
    priority: input.priority ?? current.priority,
    ...provenance,
    expires_at: revive ? null : input.expires_at === undefined ? current.expires_at : input.expires_at === null ? null : new Date(input.expires_at),
    occurred_at: input.occurred_at ? new Date(input.occurred_at) : current.occurred_at,
    memory_type: input.memory_type ?? current.memory_type,
    source_refs: input.source_refs ?? current.source_refs,
    temporal_context: input.temporal_context ?? current.temporal_context,
    temporal_position: input.temporal_position ?? current.temporal_position,
    payload: input.payload ?? current.payload,
  };
  const reimportance = importance && (hash !== current.content_hash || importance.score !== current.importance_score) ? importance : undefined;
  const unchanged =
    !reimportance &&
    next.content_hash === current.content_hash &&
    sameArray(next.tags, current.tags) &&
    next.priority === current.priority &&
    next.source === current.source &&
    next.verified === current.verified &&
    next.confidence === current.confidence &&
    sameTime(next.expires_at, current.expires_at) &&
    sameTime(next.occurred_at, current.occurred_at) &&
    next.memory_type === current.memory_type &&
    sameArray(next.source_refs, current.source_refs) &&
    next.temporal_context === current.temporal_context &&
    next.temporal_position === current.temporal_position &&
    canonical(next.payload) === canonical(current.payload);
  if (unchanged) return undefined;
  const update: MemoryUpdate = { ...next, payload: JSON.stringify(next.payload), version: current.version + 1, updated_at: now };
  // New content needs a new vector: the one computed for this write, else the backfill's.
  if (hash !== current.content_hash) Object.assign(update, embeddingColumns(embedding, now));
  if (reimportance) {
    const retentionNow =
      current.current_retention === null || current.retention_at === null || current.strength_days === null
        ? 0
        : currentRetention(
            { current_retention: current.current_retention, retention_at: current.retention_at, strength_days: current.strength_days, access_count: current.access_count },
            now,
            config,
          );
    Object.assign(
      update,
      reencodeLifecycle({ layer: current.layer, synaptic: current.synaptic_consolidated }, retentionNow, reimportance.score, now, config, reimportance.path === 'caller'),
      { importance_source: reimportance.path, emotional_weight: emotionalEncoding(content).weight },
    );
  }
  return update;
}

/**
 * Writes of memories (seed 002 "메모리 라이프사이클"): upsert by (category, key), batch import,
 * update, verification, deletion. Every write that changes a memory records the new state in
 * `memory_versions`, in the same transaction. Every new memory is scored and gets its layer,
 * retention and review schedule (seed 001 §1-§2), on event time when it is an import.
 */
@Injectable()
export class MemoryWriteService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly settings: LifecycleSettings,
    private readonly scorer: ImportanceScorer,
    private readonly embedder: RequestEmbedder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly embeddingDemand?: EmbeddingDemand,
  ) {}

  /** A memory stored without its vector: with a worker (REDIS_URL), ask it to embed now. */
  private demandEmbedding(tenantId: string, vectors: readonly (readonly number[] | null | undefined)[]): void {
    if (this.embeddingDemand?.enabled && vectors.some((v) => !v)) void this.embeddingDemand.pending(tenantId, this.clock.now());
  }

  /**
   * Creates the memory or overwrites the one with the same (category, key); never duplicates.
   * @throws AppError 404 for a mind that is not the caller's; 400 when `source` disagrees with the credential.
   */
  async upsert(scope: MemoryScope, input: UpsertMemoryInput): Promise<{ memory: MemoryView; status: WriteStatus }> {
    this.checkSource(input, scope, 'source');
    const config = await this.config(scope);
    const importance = await this.importanceOf(input, config);
    const embedded = await this.embedder.tryEmbed([input.content]);
    const embedding = { model: embedded.model, vector: embedded.vectors[0] ?? null };
    const result = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.upsertInTx(tx, scope, input, importance, embedding, this.clock.now(), config);
    });
    this.demandEmbedding(scope.tenantId, [embedding.vector]);
    return { memory: memoryView(result.memory), status: result.status };
  }

  /** Upserts up to 500 memories in one transaction: all are stored or none. */
  async batch(scope: MemoryScope, items: UpsertMemoryInput[]) {
    items.forEach((item, i) => this.checkSource(item, scope, `items[${i}].source`));
    const config = await this.config(scope);
    const scores: ImportanceResult[] = [];
    // Scoring may call an LLM: a few at a time, and before the transaction holds a connection.
    for (let i = 0; i < items.length; i += 8) {
      scores.push(...(await Promise.all(items.slice(i, i + 8).map((item) => this.importanceOf(item, config)))));
    }
    const embedded = await this.embedder.tryEmbed(items.map((item) => item.content));
    const results = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const now = this.clock.now();
      // Rows are locked in (category, key) order, not the request's: two batches naming the same
      // keys in different orders would otherwise deadlock (test/concurrency.test.ts). The sort is
      // stable, so a key given twice is still written in request order; answers keep request order.
      const order = items.map((_, i) => i).sort((a, b) => {
        const x = items[a] as UpsertMemoryInput;
        const y = items[b] as UpsertMemoryInput;
        return x.category < y.category ? -1 : x.category > y.category ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : a - b;
      });
      const out: WriteResult[] = new Array<WriteResult>(items.length);
      for (const i of order) {
        const embedding = { model: embedded.model, vector: embedded.vectors[i] ?? null };
        out[i] = await this.upsertInTx(tx, scope, items[i] as UpsertMemoryInput, scores[i] as ImportanceResult, embedding, now, config);
      }
      return out;
    });
    this.demandEmbedding(scope.tenantId, items.map((_, i) => embedded.vectors[i]));
    const count = (status: WriteStatus) => results.filter((r) => r.status === status).length;
    return {
      created: count('created'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      items: results.map(({ memory, status }) => ({
        id: memory.id,
        category: memory.category,
        key: memory.key,
        version: memory.version,
        status,
      })),
    };
  }

  /** Changes fields of a memory by id. @throws AppError 404 */
  async update(scope: MemoryScope, id: string, input: UpdateMemoryInput): Promise<MemoryView> {
    const config = await this.config(scope);
    const importance = input.content !== undefined || input.importance !== undefined ? await this.importanceOf({ ...input, content: input.content }, config) : undefined;
    const embedded = input.content === undefined ? undefined : await this.embedder.tryEmbed([input.content]);
    const embedding = embedded && { model: embedded.model, vector: embedded.vectors[0] ?? null };
    const memory = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
      if (!current) throw AppError.notFound('memory');
      return (await this.apply(tx, scope, current, input, importance, embedding, this.clock.now(), config, false)).memory;
    });
    if (embedding) this.demandEmbedding(scope.tenantId, [embedding.vector]);
    return memoryView(memory);
  }

  /** Marks a memory verified by a person (seed 002 "검증"); idempotent. @throws AppError 404 */
  async verify(scope: MemoryScope, id: string): Promise<MemoryView> {
    const memory = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
      if (!current) throw AppError.notFound('memory');
      if (current.verified) return current;
      const verified = await this.memories.update(tx, scope.mindId, id, {
        verified: true,
        version: current.version + 1,
        updated_at: this.clock.now(),
      });
      await this.versions.record(tx, verified, 'verify', scope.actor);
      return verified;
    });
    return memoryView(memory);
  }

  /** Deletes a memory and its history. @throws AppError 404 */
  async delete(scope: MemoryScope, id: string): Promise<void> {
    const deleted = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.memories.delete(tx, scope.mindId, id);
    });
    if (!deleted) throw AppError.notFound('memory');
  }

  private config(scope: MemoryScope): Promise<LifecycleConfig> {
    return this.settings.forTenant(scope.tenantId);
  }

  /**
   * The caller's importance when given, else the scorer's (seed 001 §1), at least the explicit-save
   * floor: a keyed write is an explicit save (DESIGN §4.1).
   */
  private async importanceOf(input: { content?: string; importance?: number; category?: string; priority?: UpsertMemoryInput['priority'] }, config: LifecycleConfig): Promise<ImportanceResult> {
    if (input.importance !== undefined) return { score: input.importance, path: 'caller' };
    const scored = await this.scorer.score(input.content ?? '', { category: input.category, priority: input.priority }, config);
    return withExplicitSaveFloor(scored, config.importance.explicit_save_floor);
  }

  private async upsertInTx(
    tx: TenantTx,
    scope: MemoryScope,
    input: UpsertMemoryInput,
    importance: ImportanceResult,
    embedding: Embedding,
    now: Date,
    config: LifecycleConfig,
  ): Promise<WriteResult> {
    const inserted = await this.memories.insertIfAbsent(
      tx,
      newMemoryRow(
        {
          mindId: scope.mindId,
          category: input.category,
          key: input.key,
          content: input.content,
          tags: input.tags,
          priority: input.priority,
          provenance: provenanceOf(scope.writer, input.confidence),
          expiresAt: input.expires_at,
          occurredAt: input.occurred_at ? new Date(input.occurred_at) : now,
          now,
          memoryType: input.memory_type,
          sourceRefs: input.source_refs,
          temporalContext: input.temporal_context,
          temporalPosition: input.temporal_position,
          payload: input.payload,
          importance,
          embedding,
        },
        config,
      ),
    );
    if (inserted) {
      await this.versions.record(tx, inserted, 'create', scope.actor);
      return { memory: inserted, status: 'created' };
    }
    const current = await this.memories.findByKeyForUpdate(tx, scope.mindId, input.category, input.key);
    // Only possible if a concurrent request deleted it between the two statements.
    if (!current) throw new AppError('conflict', 'the memory changed while writing; retry');
    return this.apply(tx, scope, current, input, importance, embedding, now, config, true);
  }

  private async apply(
    tx: TenantTx,
    scope: MemoryScope,
    current: MemoryRow,
    input: UpdateMemoryInput,
    importance: ImportanceResult | undefined,
    embedding: Embedding | undefined,
    now: Date,
    config: LifecycleConfig,
    upsert: boolean,
  ): Promise<WriteResult> {
    // A scorer's opinion counts only for new content, and never over an importance the writer set.
    const rescored = input.content !== undefined && contentHash(input.content) !== current.content_hash && current.importance_source !== 'caller';
    const relevant = importance && (importance.path === 'caller' || rescored) ? importance : undefined;
    const change = changeOf(current, input, relevant, scope, now, config, upsert, embedding);
    if (!change) return { memory: current, status: 'unchanged' };
    const memory = await this.memories.update(tx, scope.mindId, current.id, change);
    await this.versions.record(tx, memory, 'update', scope.actor);
    return { memory, status: 'updated' };
  }

  private checkSource(input: { source?: string }, scope: MemoryScope, field: string): void {
    if (input.source !== undefined && input.source !== scope.writer) {
      throw AppError.badField(field, `is set from the credential: ${scope.writer} for this request`);
    }
  }
}

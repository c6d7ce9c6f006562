import { Injectable, Optional } from '@nestjs/common';
import {
  MemoriesRepository,
  MemoryAccessesRepository,
  MemoryVersionsRepository,
  embeddingColumns,
  newId,
  type Actor,
  type Embedding,
  type MemoryChange,
  type MemoryRow,
  type MemoryUpdate,
  type NewMemory,
  type NewMemoryVersion,
  type TenantTx,
} from '@engram/db';
import {
  applyRepetition,
  changeKind,
  memoryChange,
  statedAt,
  newMemory,
  provenanceOf,
  type ImportanceResult,
  type LifecycleConfig,
  type MemoryCategory,
  type MemoryEdit,
  type MemoryPatch,
  type MemoryTier,
  type NewMemoryFields,
  type NewMemoryInput,
} from '@engram/memory';
import { retentionStateOf } from './accessed-row';
import { AppError } from './app-error';
import { VectorIndexing } from './vector-indexing';
import type { MemoryScope } from './memory-scope';
import { changedFields, memoryEvent, memoryEventData, WebhookOutbox, type ConsolidationStage } from './webhooks/webhook-outbox';

export type WriteStatus = 'created' | 'updated' | 'unchanged';

export interface WriteResult {
  memory: MemoryRow;
  status: WriteStatus;
}

/** A keyed write (`POST /memory`): the memory's identity and what the writer states. */
export interface KeyedWrite extends MemoryEdit {
  category: MemoryCategory;
  key: string;
  content: string;
}

/** A memory restored with its lifecycle and history as they were (an import). */
export interface RestoredMemory {
  row: Omit<NewMemory, 'tenant_id'>;
  versions: NewMemoryVersion[];
}

/** The row of new memory fields as the table takes them: JSON as text, and the vector columns. */
function insertable(fields: NewMemoryFields, embedding: Embedding | undefined, now: Date): Omit<NewMemory, 'tenant_id'> {
  return { ...fields, payload: JSON.stringify(fields.payload), association_graph: JSON.stringify(fields.association_graph), ...embeddingColumns(embedding, now) };
}

/**
 * The vector columns after new content: its vector when the write computed one, else waiting
 * for the backfill; an archived memory stays out of the vector index until it is used.
 */
function vectorAfterEdit(tier: MemoryTier, embedding: Embedding | undefined, now: Date) {
  if (!embedding?.vector && tier === 'archive') return { embedding: null, embedding_model: embedding?.model ?? null, embedding_status: 'archived' as const, embedded_at: null };
  return embeddingColumns(embedding, now);
}

/** True when a change brings an expired memory (out of the vector index since it expired) back. */
function revives(current: MemoryRow, patch: MemoryPatch, now: Date): boolean {
  if (patch.expires_at === undefined || current.embedding_status !== 'archived' || current.tier === 'archive') return false;
  const wasExpired = current.expires_at !== null && current.expires_at.getTime() <= now.getTime();
  return wasExpired && (patch.expires_at === null || patch.expires_at.getTime() > now.getTime());
}

/**
 * The one writer of memories (docs/design.md §4): every path that creates or changes a memory
 * (the API's writes, the conversation stream's consolidation, generalisation, an import) goes
 * through it, inside the caller's transaction, so the rules are applied once. The rows are
 * built by libs/memory `newMemory` and `memoryChange`; every creation and change records the
 * new state in `memory_versions` in the same transaction (seed 002: an upsert never silently
 * loses the old content), and announces it to the tenant's webhooks in the same transaction
 * (the outbox, docs/webhooks.md): `memory.created` (or `memory.consolidated` for what
 * consolidation writes), `memory.updated`, `memory.deleted`. A reinforcement is not announced
 * (what the memory states is unchanged), nor is an import's restore (it puts back a tenant's
 * own export).
 */
@Injectable()
export class MemoryWriter {
  constructor(
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly accesses: MemoryAccessesRepository,
    // Always provided by ServicesModule, beside this writer; optional only for test fixtures that
    // build a bare writer to restore rows (which announces nothing).
    @Optional() private readonly outbox?: WebhookOutbox,
    // Likewise: without it (bare fixtures) new memories wait for the tiering sweep to join the index.
    @Optional() private readonly vectorIndexing?: VectorIndexing,
  ) {}

  /**
   * Stores a new memory unless its (category, key) exists, recording its first version. Its id
   * is `input.id` or a new UUIDv7. Announced as `memory.created`, or with `consolidated` as
   * `memory.consolidated` with `data.stage`.
   * @returns the memory, or undefined when the key is taken (nothing written)
   */
  async create(
    tx: TenantTx,
    input: Omit<NewMemoryInput, 'id'> & { id?: string },
    config: LifecycleConfig,
    actor: Actor,
    embedding?: Embedding,
    options: { consolidated?: ConsolidationStage } = {},
  ): Promise<MemoryRow | undefined> {
    const indexed = (await this.vectorIndexing?.indexes(tx, input.mindId)) ?? false;
    const inserted = await this.memories.insertIfAbsent(tx, { ...insertable(newMemory({ ...input, id: input.id ?? newId() }, config), embedding, input.now), vector_indexed: indexed });
    if (inserted) {
      await this.versions.record(tx, inserted, 'create', actor);
      const data = memoryEventData(inserted);
      await this.outbox?.emit(tx, [
        options.consolidated ? memoryEvent('memory.consolidated', input.now, { ...data, stage: options.consolidated }) : memoryEvent('memory.created', input.now, data),
      ]);
    }
    return inserted;
  }

  /**
   * Creates the memory of (category, key) or changes the one that holds it; never duplicates
   * (seed 002 "키: 안정적 식별자"). A new memory gets the writer's provenance and its lifecycle
   * from `importance`, starting at `now` whatever the date of the event it tells (libs/memory
   * `newMemory`).
   * @throws AppError 409 when a concurrent request deleted the memory between the two statements
   */
  async upsert(tx: TenantTx, scope: MemoryScope, input: KeyedWrite, importance: ImportanceResult, embedding: Embedding, now: Date, config: LifecycleConfig): Promise<WriteResult> {
    const created = await this.create(
      tx,
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
      },
      config,
      scope.actor,
      embedding,
    );
    if (created) return { memory: created, status: 'created' };
    const current = await this.memories.findByKeyForUpdate(tx, scope.mindId, input.category, input.key);
    if (!current) throw new AppError('conflict', 'the memory changed while writing; retry');
    return this.edit(tx, scope, current, input, { importance, embedding, now, config, upsert: true });
  }

  /**
   * Applies an edit to a stored (and locked) memory: libs/memory `memoryChange` decides what
   * changes; nothing is written when nothing does.
   */
  async edit(
    tx: TenantTx,
    scope: MemoryScope,
    current: MemoryRow,
    edit: MemoryEdit,
    ctx: { importance?: ImportanceResult; embedding?: Embedding; now: Date; config: LifecycleConfig; upsert: boolean },
  ): Promise<WriteResult> {
    const patch = memoryChange(current, edit, { writer: scope.writer, now: ctx.now, config: ctx.config, upsert: ctx.upsert, importance: ctx.importance });
    const written: WriteResult = patch
      ? { memory: await this.change(tx, current, patch, scope.actor, { embedding: ctx.embedding, now: ctx.now, kind: changeKind(current, patch) }), status: 'updated' }
      : { memory: current, status: 'unchanged' };
    if (current.forgotten_at === null) return written;
    // Saving or editing a soft-forgotten memory is its repetition (seed 000 rehearsal;
    // docs/lifecycle.md "Reinforcement"): it is revived as a repeated conversation fact is, rather
    // than answered "unchanged" and left out of recall (a tester's find).
    const repetition = ctx.importance ?? { score: current.importance_score ?? 0, path: current.importance_source ?? 'rules' };
    await this.reinforce(tx, written.memory, [], repetition, ctx.now, ctx.config);
    return { ...written, memory: (await this.memories.findById(tx, current.mind_id, current.id)) ?? written.memory };
  }

  /**
   * Writes a change and records the new version. New content is stored in full (a compacted
   * memory is expanded) and takes `embedding`, or waits for the backfill.
   */
  async change(tx: TenantTx, current: MemoryRow, patch: MemoryPatch, actor: Actor, options: { embedding?: Embedding; now: Date; kind?: MemoryChange }): Promise<MemoryRow> {
    const { payload, ...rest } = patch;
    const update: MemoryUpdate = { ...rest, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) };
    if (patch.content_hash !== undefined && patch.content_hash !== current.content_hash) {
      Object.assign(update, { compacted: false, content_z: null }, vectorAfterEdit(current.tier, options.embedding, options.now));
    } else if (revives(current, patch, options.now)) {
      // The forgetting sweep took an expired memory's vector out of the index; back, it needs one again.
      Object.assign(update, { embedding_attempts: 0 }, vectorAfterEdit(current.tier, options.embedding, options.now));
    }
    const memory = await this.memories.update(tx, current.mind_id, current.id, update);
    await this.versions.record(tx, memory, options.kind ?? 'update', actor);
    await this.outbox?.emit(tx, [memoryEvent('memory.updated', options.now, { ...memoryEventData(memory), changed: changedFields(current, memory) })]);
    return memory;
  }

  /**
   * Deletes a memory of the mind with its history and the webhook deliveries about it (their
   * payloads carry its content), announced as `memory.deleted`, whose payload carries none.
   * @returns whether it existed
   */
  async delete(tx: TenantTx, mindId: string, id: string, now: Date): Promise<boolean> {
    const gone = await this.memories.deleteReturning(tx, mindId, id);
    if (!gone) return false;
    await this.outbox?.forget(tx, gone.id);
    await this.outbox?.emit(tx, [memoryEvent('memory.deleted', now, { mind_id: gone.mind_id, memory_id: gone.id, category: gone.category, key: gone.key, deleted_at: now.toISOString() })]);
    return true;
  }

  /** Marks a memory verified by a person (seed 002 "검증"); idempotent: a verified memory is left as it is. */
  async verify(tx: TenantTx, current: MemoryRow, actor: Actor, now: Date): Promise<MemoryRow> {
    if (current.verified) return current;
    return this.change(tx, current, { verified: true, version: current.version + 1, updated_at: now }, actor, { now, kind: 'verify' });
  }

  /**
   * A memory that a consolidation repeated is reinforced instead of copied (seed 000 "integrate
   * with existing LTM"): libs/memory `applyRepetition` (an access whose review counts, the
   * memory at least as important as the repetition), and the messages join its `source_refs`
   * (the newest 100). Not a new version: what it states is unchanged, but it was said again:
   * `restated_at` becomes `saidAt` when later, so that among statements of the same thing it
   * ranks by this latest statement (libs/memory `statedAt`; "Paris", "Berlin", "Paris" again:
   * Paris is current).
   *
   * @param repetition the repeating message's or entry's importance (0..1) and the path that scored it;
   *   when it raises the memory's importance, `importance_source` becomes that path
   * @param saidAt when the repetition was said (a message's event time); default `now`
   */
  async reinforce(tx: TenantTx, memory: Pick<MemoryRow, 'id' | 'mind_id'>, messageIds: readonly string[], repetition: ImportanceResult, now: Date, config: LifecycleConfig, saidAt: Date = now): Promise<void> {
    const importance = repetition.score;
    const row = await this.memories.findById(tx, memory.mind_id, memory.id, { forUpdate: true });
    if (!row) return;
    const refs = [...new Set([...row.source_refs, ...messageIds])].slice(-100);
    // Only a later statement restates it: a repetition dated before what the memory holds (an old
    // history posted late) says nothing newer.
    const restated = saidAt.getTime() > statedAt(row) ? { restated_at: saidAt } : {};
    const state = retentionStateOf(row);
    if (!state) {
      await this.accesses.recordAccess(tx, row.mind_id, [row.id], now, config, { returning: false });
      await this.memories.update(tx, row.mind_id, row.id, { source_refs: refs, ...restated });
      return;
    }
    const next = applyRepetition(state, importance, now, config, row.synaptic_consolidated);
    await this.memories.update(tx, row.mind_id, row.id, {
      source_refs: refs,
      ...restated,
      importance_score: next.importance_score,
      // The path that set the importance is the repetition's when it raised it.
      ...(next.importance_score > state.importance_score ? { importance_source: repetition.path } : {}),
      layer: next.layer,
      current_retention: next.current_retention,
      retention_at: next.retention_at,
      strength_days: next.strength_days,
      access_count: next.access_count,
      last_accessed: next.last_accessed,
      review_count: next.review_count,
      last_reviewed: next.last_reviewed,
      next_review: next.next_review,
      forgotten_at: next.forgotten_at,
      // As any access: an archived memory is rehydrated (libs/memory tierAfterAccess).
      ...(row.tier === 'archive' ? { tier: 'warm' as const, ...(row.embedding_status === 'archived' ? { embedding_status: 'pending' as const, embedding_attempts: 0 } : {}) } : {}),
    });
  }

  /**
   * Restores memories as an export holds them (an import: keys known to be free), with their
   * lifecycle fields and whole history. @returns the versions stored
   */
  async restore(tx: TenantTx, memories: readonly RestoredMemory[]): Promise<number> {
    await this.memories.insertMany(tx, memories.map((m) => m.row));
    const versions = memories.flatMap((m) => m.versions);
    await this.versions.insertMany(tx, versions);
    return versions.length;
  }
}

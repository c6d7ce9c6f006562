import { Injectable } from '@nestjs/common';
import {
  MemoriesRepository,
  MemoryVersionsRepository,
  TenantDb,
  type MemoryRow,
  type MemoryUpdate,
  type TenantTx,
} from '@engram/db';
import { DEFAULT_MEMORY_TYPE, contentHash, normalizeTags, provenanceOf } from '@engram/memory';
import { AppError } from '../common/app-error';
import { newId } from '../common/ids';
import type { UpdateMemoryInput, UpsertMemoryInput } from './memory.dto';
import type { MemoryScope } from './memory-scope';
import { memoryView, type MemoryView } from './memory.view';
import { MindAccess } from './mind-access';

export type WriteStatus = 'created' | 'updated' | 'unchanged';

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
 * Omitted fields keep their stored values; provenance follows {@link provenanceOf}.
 */
function changeOf(current: MemoryRow, input: UpdateMemoryInput, scope: MemoryScope, now: Date): MemoryUpdate | undefined {
  const content = input.content ?? current.content;
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
    expires_at: input.expires_at === undefined ? current.expires_at : input.expires_at === null ? null : new Date(input.expires_at),
    occurred_at: input.occurred_at ? new Date(input.occurred_at) : current.occurred_at,
    memory_type: input.memory_type ?? current.memory_type,
    source_refs: input.source_refs ?? current.source_refs,
    temporal_context: input.temporal_context ?? current.temporal_context,
    payload: input.payload ?? current.payload,
  };
  const unchanged =
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
    canonical(next.payload) === canonical(current.payload);
  if (unchanged) return undefined;
  return { ...next, payload: JSON.stringify(next.payload), version: current.version + 1, updated_at: now };
}

/**
 * Writes of memories (seed 002 "메모리 라이프사이클"): upsert by (category, key), batch import,
 * update, verification, deletion. Every write that changes a memory records the new state in
 * `memory_versions`, in the same transaction.
 */
@Injectable()
export class MemoryWriteService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
  ) {}

  /**
   * Creates the memory or overwrites the one with the same (category, key); never duplicates.
   * @throws AppError 404 for a mind that is not the caller's; 400 when `source` disagrees with the credential.
   */
  async upsert(scope: MemoryScope, input: UpsertMemoryInput): Promise<{ memory: MemoryView; status: WriteStatus }> {
    this.checkSource(input, scope, 'source');
    const result = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.upsertInTx(tx, scope, input, new Date());
    });
    return { memory: memoryView(result.memory), status: result.status };
  }

  /** Upserts up to 500 memories in one transaction: all are stored or none. */
  async batch(scope: MemoryScope, items: UpsertMemoryInput[]) {
    items.forEach((item, i) => this.checkSource(item, scope, `items[${i}].source`));
    const results = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const now = new Date();
      const out: WriteResult[] = [];
      for (const item of items) out.push(await this.upsertInTx(tx, scope, item, now));
      return out;
    });
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
    const memory = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const current = await this.memories.findById(tx, scope.mindId, id, { forUpdate: true });
      if (!current) throw AppError.notFound('memory');
      return (await this.apply(tx, scope, current, input, new Date())).memory;
    });
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
        updated_at: new Date(),
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

  private async upsertInTx(tx: TenantTx, scope: MemoryScope, input: UpsertMemoryInput, now: Date): Promise<WriteResult> {
    const provenance = provenanceOf(scope.writer, input.confidence);
    const inserted = await this.memories.insertIfAbsent(tx, {
      id: newId(),
      mind_id: scope.mindId,
      category: input.category,
      key: input.key,
      content: input.content,
      content_hash: contentHash(input.content),
      tags: normalizeTags(input.tags ?? []),
      priority: input.priority ?? 'normal',
      ...provenance,
      expires_at: input.expires_at ?? null,
      occurred_at: input.occurred_at ?? now,
      created_at: now,
      updated_at: now,
      memory_type: input.memory_type ?? DEFAULT_MEMORY_TYPE[input.category],
      source_refs: input.source_refs ?? [],
      temporal_context: input.temporal_context ?? null,
      payload: JSON.stringify(input.payload ?? {}),
    });
    if (inserted) {
      await this.versions.record(tx, inserted, 'create', scope.actor);
      return { memory: inserted, status: 'created' };
    }
    const current = await this.memories.findByKeyForUpdate(tx, scope.mindId, input.category, input.key);
    // Only possible if a concurrent request deleted it between the two statements.
    if (!current) throw new AppError('conflict', 'the memory changed while writing; retry');
    return this.apply(tx, scope, current, input, now);
  }

  private async apply(tx: TenantTx, scope: MemoryScope, current: MemoryRow, input: UpdateMemoryInput, now: Date): Promise<WriteResult> {
    const change = changeOf(current, input, scope, now);
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

import { v7 as uuidv7 } from 'uuid';
import {
  DEFAULT_MEMORY_TYPE,
  contentHash,
  emotionalEncoding,
  encodeLifecycle,
  normalizeTags,
  type ImportanceResult,
  type LifecycleConfig,
  type MemoryCategory,
  type MemoryPriority,
  type MemoryType,
  type Provenance,
} from '@engram/memory';
import type { NewMemory } from './schema';

/** A new time-ordered id (UUIDv7): index-friendly, and id order is creation order. */
export function newId(): string {
  return uuidv7();
}

/** What a new memory is made of, before the lifecycle is derived from it. */
export interface NewMemoryInput {
  mindId: string;
  category: MemoryCategory;
  key: string;
  content: string;
  tags?: string[];
  priority?: MemoryPriority;
  provenance: Provenance;
  expiresAt?: Date | string | null;
  /** When the remembered event happened; its life starts then when that is in the past. */
  occurredAt: Date;
  now: Date;
  memoryType?: MemoryType;
  sourceRefs?: string[];
  temporalContext?: string | null;
  temporalPosition?: number | null;
  payload?: Record<string, unknown>;
  importance: ImportanceResult;
  /** Out of STM consolidation: strength × the synaptic factor (seed 000). */
  synaptic?: boolean;
  consolidationScore?: number | null;
  /** The content's vector and its model; without a vector the memory waits for the backfill. */
  embedding?: { model: string; vector: number[] | null };
}

/** pgvector's text form of a vector: `[x,y,...]`, 7 significant digits (pgvector keeps float4). */
export function vectorLiteral(v: readonly number[]): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (v[i] === 0 ? '0' : (v[i] as number).toPrecision(7));
  return `${out}]`;
}

/** The embedding columns for a vector (ready) or its absence (pending). */
export function embeddingColumns(embedding: { model: string; vector: number[] | null } | undefined, now: Date) {
  if (!embedding?.vector) return { embedding: null, embedding_model: embedding?.model ?? null, embedding_status: 'pending' as const, embedded_at: null };
  return { embedding: vectorLiteral(embedding.vector), embedding_model: embedding.model, embedding_status: 'ready' as const, embedded_at: now };
}

/**
 * The row of a new memory with every derived field: content hash, normalised tags, the
 * lifecycle of seed 001 §2 (layer, retention, strength, review schedule) on event time, and
 * its emotional weight. One place, so a keyed write and a consolidation encode alike.
 */
export function newMemoryRow(input: NewMemoryInput, config: LifecycleConfig): Omit<NewMemory, 'tenant_id'> {
  const bornAt = input.occurredAt.getTime() <= input.now.getTime() ? input.occurredAt : input.now;
  return {
    id: newId(),
    mind_id: input.mindId,
    category: input.category,
    key: input.key,
    content: input.content,
    content_hash: contentHash(input.content),
    tags: normalizeTags(input.tags ?? []),
    priority: input.priority ?? 'normal',
    ...input.provenance,
    expires_at: input.expiresAt ?? null,
    occurred_at: input.occurredAt,
    created_at: input.now,
    updated_at: input.now,
    memory_type: input.memoryType ?? DEFAULT_MEMORY_TYPE[input.category],
    source_refs: input.sourceRefs ?? [],
    temporal_context: input.temporalContext ?? null,
    temporal_position: input.temporalPosition ?? null,
    payload: JSON.stringify(input.payload ?? {}),
    ...encodeLifecycle({ importance: input.importance.score, bornAt, synaptic: input.synaptic }, config),
    importance_source: input.importance.path,
    emotional_weight: emotionalEncoding(input.content).weight,
    synaptic_consolidated: input.synaptic ?? false,
    consolidation_score: input.consolidationScore ?? null,
    ...embeddingColumns(input.embedding, input.now),
  };
}

import { contentHash } from '../content-hash';
import { emotionalEncoding } from '../lifecycle/emotion';
import { encodeLifecycle, type EncodedLifecycle } from '../lifecycle/encode';
import type { ImportancePath, ImportanceResult } from '../lifecycle/importance';
import type { LifecycleConfig } from '../lifecycle/lifecycle-config';
import { DEFAULT_MEMORY_TYPE, type MemoryCategory, type MemoryLayer, type MemoryPriority, type MemoryType } from '../memory.constants';
import type { Provenance } from '../provenance';
import type { WrittenFields } from './memory-change';
import { normalizeTags } from '../tags';

/** Where a memory is stored in seed 000's systems model: new memories in the hippocampus, after 30 days the neocortex. */
export type StorageLocation = 'hippocampus' | 'neocortex';

/** What a new memory is made of, before the lifecycle is derived from it. */
export interface NewMemoryInput {
  /** The new memory's id (the writer draws a UUIDv7; a restore may keep the file's). */
  id: string;
  mindId: string;
  category: MemoryCategory;
  key: string;
  content: string;
  tags?: readonly string[];
  priority?: MemoryPriority;
  provenance: Provenance;
  /** ISO 8601 or a Date; null or absent: never expires. */
  expiresAt?: Date | string | null;
  /** When the remembered event happened (event time): it orders and dates the memory, nothing more. */
  occurredAt: Date;
  /** When it was last said again before it was stored (an STM entry rehearsed before it consolidated); absent: never. */
  restatedAt?: Date | null;
  /**
   * When it is stored: its life (retention's anchor, the review schedule) starts then, whatever
   * the event's date. What is learned today about an old event is a new memory: a newcomer's save
   * of "married in June 2025", and a chat history of 400 days ago consolidated today, were
   * soft-forgotten at the first sweep while their curves started at the events.
   */
  now: Date;
  memoryType?: MemoryType;
  sourceRefs?: readonly string[];
  temporalContext?: string | null;
  temporalPosition?: number | null;
  payload?: Record<string, unknown>;
  importance: ImportanceResult;
  /** Out of STM consolidation: strength × the synaptic factor (seed 000 synaptic consolidation). */
  synaptic?: boolean;
  consolidationScore?: number | null;
  /**
   * The layer it is stored in when that is not the one its importance classifies into: a
   * generalised semantic memory is long-term from the start (seed 000). Its strength follows
   * this layer.
   */
  layer?: MemoryLayer;
  storageLocation?: StorageLocation;
  associationGraph?: Record<string, unknown>;
}

/** Every column of a new memory that the rules derive, in the row's own names (the writer adds the vector columns). */
export interface NewMemoryFields extends EncodedLifecycle, WrittenFields {
  id: string;
  mind_id: string;
  category: MemoryCategory;
  key: string;
  /** Only when it was said again before it was stored; absent, the column's default (null). */
  restated_at?: Date;
  created_at: Date;
  updated_at: Date;
  importance_source: ImportancePath;
  /** 0..1, the content's emotional weight (seed 000 emotional_encoding). */
  emotional_weight: number;
  synaptic_consolidated: boolean;
  consolidation_score: number | null;
  storage_location: StorageLocation;
  association_graph: Record<string, unknown>;
}

/**
 * The row of a new memory with every derived field: content hash, normalised tags, the
 * lifecycle of seed 001 §2 (layer, retention, strength, review schedule) from when it is stored, and its
 * emotional weight (docs/design.md §3-§5). One definition for every path that creates a memory
 * (a keyed write, a consolidation, a generalisation), so they encode alike.
 */
export function newMemory(input: NewMemoryInput, config: LifecycleConfig): NewMemoryFields {
  return {
    id: input.id,
    mind_id: input.mindId,
    category: input.category,
    key: input.key,
    content: input.content,
    content_hash: contentHash(input.content),
    tags: normalizeTags([...(input.tags ?? [])]),
    priority: input.priority ?? 'normal',
    ...input.provenance,
    expires_at: input.expiresAt === undefined || input.expiresAt === null ? null : new Date(input.expiresAt),
    occurred_at: input.occurredAt,
    ...(input.restatedAt ? { restated_at: input.restatedAt } : {}),
    created_at: input.now,
    updated_at: input.now,
    memory_type: input.memoryType ?? DEFAULT_MEMORY_TYPE[input.category],
    source_refs: [...(input.sourceRefs ?? [])],
    temporal_context: input.temporalContext ?? null,
    temporal_position: input.temporalPosition ?? null,
    payload: input.payload ?? {},
    ...encodeLifecycle({ importance: input.importance.score, bornAt: input.now, synaptic: input.synaptic, layer: input.layer }, config),
    importance_source: input.importance.path,
    emotional_weight: emotionalEncoding(input.content).weight,
    synaptic_consolidated: input.synaptic ?? false,
    consolidation_score: input.consolidationScore ?? null,
    storage_location: input.storageLocation ?? 'hippocampus',
    association_graph: input.associationGraph ?? {},
  };
}

import type { MemoryCategory } from '@engram/memory';
import type { Memory } from './schema';

/** The columns a memory is read with: all but the tenant, the vector and the tsvector. */
export const MEMORY_COLUMNS = [
  'id',
  'mind_id',
  'category',
  'key',
  'content',
  'tags',
  'priority',
  'source',
  'verified',
  'confidence',
  'expires_at',
  'occurred_at',
  'restated_at',
  'created_at',
  'updated_at',
  'version',
  'memory_type',
  'layer',
  'importance_score',
  'initial_retention',
  'current_retention',
  'strength_days',
  'last_reviewed',
  'review_schedule',
  'next_review',
  'review_count',
  'access_count',
  'last_accessed',
  'consolidation_score',
  'forgotten_at',
  'storage_location',
  'tier',
  'payload',
  'association_graph',
  'semantic_tags',
  'temporal_position',
  'temporal_context',
  'source_refs',
  'content_hash',
  'embedding_model',
  'retention_at',
  'importance_source',
  'emotional_weight',
  'hippocampus_dependency',
  'synaptic_consolidated',
  'embedding_status',
  'embedded_at',
  'compacted',
  // Inflated into `content` by CompactContentPlugin: readers see the full text at every tier.
  'content_z',
] as const;

export type MemoryRow = Pick<Memory, (typeof MEMORY_COLUMNS)[number]>;

/**
 * The columns an access reads (with `ACCESS_COLUMNS`, libs/db lifecycle-sql, those it writes):
 * what libs/services `accessedRow` needs of a memory to apply one.
 */
export const ACCESS_STATE_COLUMNS = [
  'id',
  'layer',
  'priority',
  'importance_score',
  'current_retention',
  'retention_at',
  'strength_days',
  'access_count',
  'last_accessed',
  'last_reviewed',
  'review_schedule',
  'next_review',
  'review_count',
  'forgotten_at',
  'occurred_at',
  'created_at',
  'tier',
  'embedding_status',
] as const;

export type AccessState = Pick<Memory, (typeof ACCESS_STATE_COLUMNS)[number]>;

/** A memory named by its identity within a tenant: (mind, category, key). */
export interface MemoryIdentity {
  mind_id: string;
  category: MemoryCategory;
  key: string;
}

/** Memories of a layer and tier, as `GET /memory/stats` counts them. */
export interface LayerTierCount {
  layer: string;
  tier: string;
  n: number;
  forgotten: number;
  expired: number;
}

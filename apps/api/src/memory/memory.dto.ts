import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { ASSOCIATION_RELATIONS, BATCH_MAX_ITEMS, IMPORTANCE_PATHS, LINK_RELATIONS, MEMORY_LAYERS, MEMORY_TIERS } from '@engram/memory';

import { isoDateTime } from '../common/zod-fields';
import { memoryField } from './memory-fields';

// The query strings live in memory-query.dto.ts; re-exported so `./memory.dto` stays the one import.
export {
  AssociationsQueryDto,
  AssociationsQuerySchema,
  ByTagQueryDto,
  ByTagQuerySchema,
  ExpiringQueryDto,
  ExpiringQuerySchema,
  ListMemoryQueryDto,
  ListMemoryQuerySchema,
  RecallQueryDto,
  RecallQuerySchema,
  SearchQueryDto,
  SearchQuerySchema,
  type AssociationsQuery,
  type RecallQuery,
  type SearchQuery,
} from './memory-query.dto';

const { category, priority, memoryType, key, content, tags, confidence, payload, sourceRefs, temporalContext, temporalPosition } = memoryField;

/** Fields a writer may set on a memory besides its identity (category, key). */
const writableFields = {
  content,
  /** The caller's importance (0..1); when absent the scorer decides (seed 001 §1). */
  importance: z
    .number({ message: 'must be a number from 0 to 1' })
    .min(0, { message: 'must be from 0 to 1' })
    .max(1, { message: 'must be from 0 to 1' })
    .optional(),
  tags: tags.optional(),
  priority: priority.optional(),
  confidence: confidence.optional(),
  expires_at: isoDateTime.nullable().optional(),
  occurred_at: isoDateTime.optional(),
  memory_type: memoryType.optional(),
  source_refs: sourceRefs.optional(),
  /** A session or episode the memory belongs to; null (PUT, or an upsert of an existing key) takes it out, with its position. */
  temporal_context: temporalContext.nullable().optional(),
  /** Order within the temporal context (a turn's number in its session): neighbours cue each other in search; null clears it. */
  temporal_position: temporalPosition.nullable().optional(),
  payload: payload.optional(),
};

/**
 * `POST /memory`: upsert by (category, key) (seed 002 "키: 안정적 식별자"). `source` is set from
 * the credential; a body may repeat it only if it agrees.
 */
export const UpsertMemorySchema = z
  .object({
    category,
    key,
    ...writableFields,
    source: z.enum(['user', 'agent'], { message: 'must be user or agent' }).optional(),
  })
  .strict();
export class UpsertMemoryDto extends createZodDto(UpsertMemorySchema) {}
export type UpsertMemoryInput = z.infer<typeof UpsertMemorySchema>;

/** `PUT /memory/:id`: any writable field; category and key are the memory's identity and stay. */
export const UpdateMemorySchema = z
  .object({ ...writableFields, content: content.optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one field' });
export class UpdateMemoryDto extends createZodDto(UpdateMemorySchema) {}
export type UpdateMemoryInput = z.infer<typeof UpdateMemorySchema>;

export const BatchSchema = z
  .object({
    items: z
      .array(UpsertMemorySchema, { message: 'must be an array of memories' })
      .min(1, { message: 'must hold at least one memory' })
      .max(BATCH_MAX_ITEMS, { message: `must hold at most ${BATCH_MAX_ITEMS} memories` }),
  })
  .strict();
export class BatchDto extends createZodDto(BatchSchema) {}

// ---- answers

const nullableDate = isoDateTime.nullable();

export const MemoryViewSchema = z.object({
  id: z.uuid(),
  mind_id: z.uuid(),
  category,
  key: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  priority,
  source: z.enum(['user', 'agent']),
  verified: z.boolean(),
  confidence: z.number(),
  expires_at: nullableDate,
  occurred_at: isoDateTime,
  /** When a repetition last said it again (a message repeating it, reinforcing it rather than copied); null: never. Search ranks statements of the same thing by the later of this and `occurred_at` (docs/retrieval.md, newest first). */
  restated_at: nullableDate,
  created_at: isoDateTime,
  updated_at: isoDateTime,
  version: z.number().int(),
  memory_type: memoryType,
  layer: z.enum(MEMORY_LAYERS),
  importance_score: z.number().nullable(),
  initial_retention: z.number().nullable(),
  current_retention: z.number().nullable(),
  strength_days: z.number().nullable(),
  last_reviewed: nullableDate,
  review_schedule: z.array(isoDateTime),
  next_review: nullableDate,
  review_count: z.number().int(),
  access_count: z.number().int(),
  last_accessed: nullableDate,
  consolidation_score: z.number().nullable(),
  forgotten_at: nullableDate,
  storage_location: z.enum(['hippocampus', 'neocortex']),
  tier: z.enum(MEMORY_TIERS),
  /** Stored compacted (cold, archive): the index keeps a gist, the full text is kept compressed; `content` is always the full text. */
  compacted: z.boolean(),
  payload: z.record(z.string(), z.unknown()),
  association_graph: z.record(z.string(), z.unknown()),
  semantic_tags: z.array(z.string()),
  temporal_position: z.number().int().nullable(),
  temporal_context: z.string().nullable(),
  source_refs: z.array(z.string()),
  content_hash: z.string(),
  embedding_model: z.string().nullable(),
  /** `ready`: searchable by meaning; `pending`: stored, waiting for the embeddings provider; `failed`: gave up until the model changes; `archived`: out of the vector index with its archive tier (found by gist, key words and tags; re-embedded when used). */
  embedding_status: z.enum(['pending', 'ready', 'failed', 'archived']),
  embedded_at: nullableDate,
  retention_at: nullableDate,
  importance_source: z.enum(IMPORTANCE_PATHS).nullable(),
  emotional_weight: z.number().nullable(),
  hippocampus_dependency: z.number(),
  synaptic_consolidated: z.boolean(),
});
export class MemoryViewDto extends createZodDto(MemoryViewSchema) {}

export const MemoryPageSchema = z.object({ items: z.array(MemoryViewSchema), next_cursor: z.string().nullable() });
export class MemoryPageDto extends createZodDto(MemoryPageSchema) {}

export const MemoryListSchema = z.object({ items: z.array(MemoryViewSchema) });
export class MemoryListDto extends createZodDto(MemoryListSchema) {}

const ExplanationSchema = z.object({
  text: z.object({ bm25: z.number(), smoothed: z.number(), rank: z.number().int().nullable() }),
  vector: z.object({ distance: z.number().nullable(), similarity: z.number(), smoothed: z.number(), rank: z.number().int().nullable() }),
  tag_boost: z.number(),
  associations: z
    .array(z.object({ from: z.string().uuid(), relation: z.enum(ASSOCIATION_RELATIONS), weight: z.number() }))
    .describe('the links (association graph, one hop) through which other hits gave this one score: from which memory, what this one is to it, the link weight 0..1'),
  rrf: z.number(),
  retention_factor: z.number(),
  importance_factor: z.number(),
  priority_factor: z.number(),
  forgotten_factor: z.number(),
  score: z.number(),
});

export const SearchResultSchema = z.object({
  items: z.array(
    MemoryViewSchema.extend({
      score: z.number().describe('fused and weighted relevance (higher is better)'),
      explain: ExplanationSchema.optional().describe('with ?explain=true: how the score came about'),
    }),
  ),
});
export class SearchResultDto extends createZodDto(SearchResultSchema) {}

/**
 * One link of a memory (`GET /memory/:id/associations`; docs/design.md §6.8): the other memory in
 * short, what it is to this one, and how strongly.
 */
export const AssociationViewSchema = z.object({
  relation: z
    .enum(LINK_RELATIONS)
    .describe(
      'what the other memory is to this one: similar_to (close in meaning), precedes / follows (came just before / after it in the same temporal_context), ' +
        'shares_entity (names the same rare thing, see via), causes / effects, generalises (the semantic memory this episode was generalised into), ' +
        'generalised_into (an episode this semantic memory generalises)',
    ),
  weight: z
    .number()
    .min(0)
    .max(1)
    .describe('0..1: cosine similarity (similar_to), 1 / gap in temporal_position (precedes, follows), the named thing\'s rarity in the mind (shares_entity), 1 (generalisation links)'),
  via: z.string().nullable().describe('the named thing shared, lower-cased (shares_entity); else null'),
  direction: z.enum(['out', 'in']).describe("out: found from this memory (or kept in its association_graph); in: found from the other one, its relation turned to this memory's side"),
  created_at: isoDateTime.describe('when the link was built (a generalisation link: when its semantic memory was written)'),
  memory: MemoryViewSchema.pick({ id: true, category: true, key: true, content: true, memory_type: true, occurred_at: true }).describe('the other memory, in short (GET /v1/memory/{id} reads it in full, as an access)'),
});

export const AssociationPageSchema = z.object({
  memory_id: z.uuid(),
  items: z.array(AssociationViewSchema).describe('strongest first'),
  next_cursor: z.string().nullable(),
});
export class AssociationPageDto extends createZodDto(AssociationPageSchema) {}

export const WriteStatusSchema = z.enum(['created', 'updated', 'unchanged']);

export const BatchResultSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  items: z.array(
    z.object({ id: z.uuid(), category, key: z.string(), version: z.number().int(), status: WriteStatusSchema }),
  ),
});
export class BatchResultDto extends createZodDto(BatchResultSchema) {}

export const MemoryVersionViewSchema = MemoryViewSchema.pick({
  version: true,
  category: true,
  key: true,
  content: true,
  tags: true,
  priority: true,
  source: true,
  verified: true,
  confidence: true,
  expires_at: true,
  created_at: true,
}).extend({
  // What else the version states; null in a version recorded before these were (2026-12-11).
  occurred_at: isoDateTime.nullable(),
  memory_type: memoryType.nullable(),
  payload: z.object({}).catchall(z.unknown()).nullable(),
  source_refs: z.array(z.string()).nullable(),
  temporal_context: z.string().nullable(),
  temporal_position: z.number().int().nullable(),
  /** The importance (0..1) the version set; null in a version recorded before it was (2026-12-17). */
  importance_score: z.number().nullable(),
  change: z.enum(['create', 'update', 'verify']),
  actor_type: z.enum(['user', 'mind_key', 'service_key', 'system']),
  actor_id: z.uuid().nullable(),
});
export class MemoryHistoryDto extends createZodDto(
  z.object({ memory_id: z.uuid(), items: z.array(MemoryVersionViewSchema) }),
) {}

/**
 * `GET /memory/:id/retention`: the retention card (retention.view.ts `retentionView`), fields in
 * its order. Retention fields are null for a memory the lifecycle does not track.
 */
export const RetentionCardSchema = z.object({
  id: z.uuid(),
  layer: z.enum(MEMORY_LAYERS),
  tier: z.enum(MEMORY_TIERS),
  priority,
  importance_score: z.number().nullable(),
  importance_source: z.enum(IMPORTANCE_PATHS).nullable(),
  initial_retention: z.number().nullable(),
  /** Retention now (0..1). */
  current_retention: z.number().nullable(),
  /** The retention last computed and when: the forgetting curve starts there. */
  retention_anchor: z.object({ retention: z.number(), at: isoDateTime }).nullable(),
  strength_days: z.number().nullable(),
  /** The strength with the accesses' reinforcement (at most `access_cap` × strength). */
  effective_strength_days: z.number().nullable(),
  /** Each review slot, `done` once a review happened at or after it. */
  review_schedule: z.array(z.object({ at: isoDateTime, done: z.boolean() })),
  next_review: nullableDate,
  review_count: z.number().int(),
  last_reviewed: nullableDate,
  access_count: z.number().int(),
  last_accessed: nullableDate,
  forgotten_at: nullableDate,
  forgetting: z.object({
    soft_threshold: z.number(),
    eviction_threshold: z.number(),
    /** What the forgetting sweep would do now. */
    verdict_now: z.enum(['keep', 'soft_forget', 'evict']),
    /** Until when the memory cannot be soft-forgotten (its first review slot), if that is still ahead. */
    grace_until: nullableDate,
  }),
  /** Retention over the next 30 days if nothing touches it: 121 points, 6 hours apart (empty when untracked). */
  forecast: z.array(z.object({ at: isoDateTime, retention: z.number() })),
  as_of: isoDateTime,
});
export class RetentionCardDto extends createZodDto(RetentionCardSchema) {}

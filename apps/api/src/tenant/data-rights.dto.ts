import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { externalId } from '../minds/minds.dto';
import { IMPORTANCE_PATHS, MAX_STRENGTH_DAYS, MEMORY_LAYERS, MEMORY_TIERS } from '@engram/memory';
import { composedLine, isoDateTime, oneLine, once } from '../common/zod-fields';
import { memoryField } from '../memory/memory-fields';

/** The `format` and `version` of the first line of every export (the `tenant` line). */
export const EXPORT_FORMAT = 'engram-export';
export const EXPORT_VERSION = 1;

// The lines of an export, as the import reads them. Unknown fields are ignored (an export from a
// later version stays importable); fields the import derives again (content_hash, embedding_*,
// compacted) are ignored too. What a memory states follows the API's rules (memory-fields.ts):
// an import stores nothing a write would refuse; lifecycle numbers stay within what the
// lifecycle settings can produce, so every derived time and retention stays computable.

const unit = z.number({ message: 'must be a number' }).min(0, { message: 'must be between 0 and 1' }).max(1, { message: 'must be between 0 and 1' });
const count = z.number({ message: 'must be an integer' }).int({ message: 'must be an integer' }).min(0, { message: 'must be ≥ 0' }).max(2_147_483_647);
const when = isoDateTime;
const stringArray = z.array(z.string({ message: 'must be a string' }), { message: 'must be an array of strings' }).max(1000);
const jsonObject = z.record(z.string(), z.unknown(), { message: 'must be a JSON object' });
const f = memoryField;

export const TenantLineSchema = z.object({
  type: z.literal('tenant'),
  format: z.literal(EXPORT_FORMAT, { message: `must be "${EXPORT_FORMAT}"` }),
  version: z.literal(EXPORT_VERSION, { message: `must be ${EXPORT_VERSION}` }),
});

export const SettingsLineSchema = z.object({
  type: z.literal('settings'),
  lifecycle: jsonObject,
});

export const MindLineSchema = z.object({
  type: z.literal('mind'),
  id: z.uuid({ message: 'must be a UUID' }),
  name: composedLine(200),
  description: z.string({ message: 'must be a string' }).max(2000, { message: 'must be at most 2000 characters' }).nullable().optional(),
  external_id: externalId.nullable().optional(),
  // Kept by a mind the import creates (the import's time without them, as in older files).
  created_at: when.optional(),
  updated_at: when.optional(),
});

export const MemoryLineSchema = z.object({
  type: z.literal('memory'),
  id: z.uuid({ message: 'must be a UUID' }),
  mind_id: z.uuid({ message: 'must be a UUID' }),
  category: f.category,
  key: f.key,
  content: f.content,
  tags: f.tags.default([]),
  priority: f.priority.default('normal'),
  source: z.enum(['user', 'agent'], { message: 'must be user or agent' }).default('user'),
  verified: z.boolean({ message: 'must be true or false' }).default(false),
  confidence: unit.default(1),
  expires_at: when.nullable().default(null),
  occurred_at: when.optional(),
  restated_at: when.nullable().default(null),
  created_at: when.optional(),
  updated_at: when.optional(),
  version: z.number({ message: 'must be an integer' }).int({ message: 'must be an integer' }).min(1, { message: 'must be ≥ 1' }).max(2_147_483_647).default(1),
  memory_type: f.memoryType.optional(),
  layer: z.enum(MEMORY_LAYERS, { message: `must be one of ${MEMORY_LAYERS.join(', ')}` }).optional(),
  importance_score: unit.nullable().default(null),
  initial_retention: unit.nullable().default(null),
  current_retention: unit.nullable().default(null),
  strength_days: z
    .number({ message: 'must be a number' })
    .positive({ message: 'must be > 0' })
    .max(MAX_STRENGTH_DAYS, { message: `must be at most ${MAX_STRENGTH_DAYS} days (the longest strength lifecycle settings can give)` })
    .nullable()
    .default(null),
  last_reviewed: when.nullable().default(null),
  review_schedule: z.array(when, { message: 'must be an array of date-times' }).max(100).default([]),
  next_review: when.nullable().default(null),
  review_count: count.default(0),
  access_count: count.default(0),
  last_accessed: when.nullable().default(null),
  consolidation_score: unit.nullable().default(null),
  forgotten_at: when.nullable().default(null),
  storage_location: z.enum(['hippocampus', 'neocortex'], { message: 'must be hippocampus or neocortex' }).default('hippocampus'),
  tier: z.enum(MEMORY_TIERS, { message: `must be one of ${MEMORY_TIERS.join(', ')}` }).default('hot'),
  payload: f.payload.default({}),
  association_graph: f.payload.default({}),
  semantic_tags: stringArray.default([]),
  temporal_position: f.temporalPosition.nullable().default(null),
  temporal_context: f.temporalContext.nullable().default(null),
  source_refs: f.sourceRefs.default([]),
  retention_at: when.nullable().default(null),
  importance_source: z.enum(IMPORTANCE_PATHS, { message: `must be one of ${IMPORTANCE_PATHS.join(', ')}` }).nullable().default(null),
  emotional_weight: unit.nullable().default(null),
  hippocampus_dependency: unit.default(1),
  synaptic_consolidated: z.boolean({ message: 'must be true or false' }).default(false),
});

export const MemoryVersionLineSchema = z.object({
  type: z.literal('memory_version'),
  memory_id: z.uuid({ message: 'must be a UUID' }),
  version: z.number({ message: 'must be an integer' }).int({ message: 'must be an integer' }).min(1, { message: 'must be ≥ 1' }).max(2_147_483_647),
  change: z.enum(['create', 'update', 'verify'], { message: 'must be create, update or verify' }),
  category: f.category,
  key: f.key,
  content: f.content,
  tags: f.tags,
  priority: f.priority,
  source: z.enum(['user', 'agent'], { message: 'must be user or agent' }),
  verified: z.boolean({ message: 'must be true or false' }),
  confidence: f.confidence,
  expires_at: when.nullable().default(null),
  // Absent from exports made before versions recorded them (2026-12-11).
  occurred_at: when.nullable().default(null),
  memory_type: f.memoryType.nullable().default(null),
  payload: f.payload.nullable().default(null),
  source_refs: f.sourceRefs.nullable().default(null),
  temporal_context: f.temporalContext.nullable().default(null),
  temporal_position: f.temporalPosition.nullable().default(null),
  // Absent from exports made before versions recorded it (2026-12-17).
  importance_score: unit.nullable().default(null),
  actor_type: z.enum(['user', 'mind_key', 'service_key', 'system'], { message: 'must be user, mind_key, service_key or system' }),
  actor_id: z.uuid({ message: 'must be a UUID' }).nullable().default(null),
  created_at: when,
});

export type MindLine = z.infer<typeof MindLineSchema>;
export type MemoryLine = z.infer<typeof MemoryLineSchema>;
export type MemoryVersionLine = z.infer<typeof MemoryVersionLineSchema>;

/** The schema of each line type (`type` chooses). */
export const LINE_SCHEMAS = {
  tenant: TenantLineSchema,
  settings: SettingsLineSchema,
  mind: MindLineSchema,
  memory: MemoryLineSchema,
  memory_version: MemoryVersionLineSchema,
} as const;

export const ImportResultSchema = z.object({
  minds: z.object({ created: z.number(), matched: z.number() }),
  memories: z.object({ created: z.number(), updated: z.number(), unchanged: z.number() }),
  versions: z.object({ created: z.number() }),
  settings: z.enum(['replaced', 'unchanged', 'absent']),
});
export class ImportResultDto extends createZodDto(ImportResultSchema) {}

export const PurgeResultSchema = z.object({
  mind_id: z.uuid(),
  memories: z.number().describe('memories deleted'),
  versions: z.number().describe('history entries deleted'),
  tombstones: z.number().describe('eviction tombstones deleted'),
  stm_entries: z.number().describe("entries of the mind's short-term memory deleted (its conversations' buffers)"),
  webhook_deliveries: z.number().describe("webhook deliveries about the mind's memories deleted, pending or done (their payloads hold the content)"),
});
export class PurgeResultDto extends createZodDto(PurgeResultSchema) {}

export const DeleteTenantQuerySchema = z
  .object({
    confirm: once(z.string({ message: 'is required: the tenant\'s name, exactly' })),
  })
  .strict();
export class DeleteTenantQueryDto extends createZodDto(DeleteTenantQuerySchema) {}

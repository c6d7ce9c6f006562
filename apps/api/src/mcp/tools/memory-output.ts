import { z } from 'zod';
import { MemoryVersionViewSchema, MemoryViewSchema } from '../../memory/memory.dto';
import type { MemoryView } from '../../memory/memory.view';
import { CONFIDENCE_GUIDE, RELEVANCE_GUIDE, RETENTION_GUIDE } from './guidance';
import { dateTimeOut, unit } from './tool-schema';

const view = MemoryViewSchema.shape;

/**
 * A memory as the tools answer it (`structuredContent`): what a model needs to use, change or
 * cite it, not the lifecycle internals of the REST view. Numbers are 0..1 with 3 decimals.
 * Enums are the REST view's (libs/memory's lists).
 */
export const MemoryOut = z.object({
  id: z.string().meta({ format: 'uuid' }),
  category: view.category,
  key: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  priority: view.priority,
  memory_type: view.memory_type,
  importance: z.number().min(0).max(1).nullable().describe('How much this matters in the long run, 0 (trivial) to 1 (essential); null: not scored'),
  confidence: z.number().min(0).max(1).describe(CONFIDENCE_GUIDE),
  source: view.source.describe('who wrote the current content: user (a person) or agent'),
  verified: z.boolean().describe('true once a person confirmed it'),
  version: z.number().int().min(1).describe('1 when created, +1 for every change (see history)'),
  expires_at: dateTimeOut.nullable(),
  occurred_at: dateTimeOut.nullable().describe('when the remembered event happened or the fact was stated (recall shows it as the date)'),
  updated_at: dateTimeOut,
});
export type MemoryOut = z.infer<typeof MemoryOut>;

/** A memory just read (get, a search hit): its retention is current, as the read itself refreshed it. */
export const ReadMemoryOut = MemoryOut.extend({ retention: z.number().min(0).max(1).nullable().describe(RETENTION_GUIDE) });

/** A search hit. */
export const HitOut = ReadMemoryOut.extend({ relevance: z.number().min(0).max(1).describe(RELEVANCE_GUIDE) });

/** The compact memory of a REST view. */
export function memoryOut(m: MemoryView): MemoryOut {
  return {
    id: m.id,
    category: m.category,
    key: m.key,
    content: m.content,
    tags: m.tags,
    priority: m.priority,
    memory_type: m.memory_type,
    importance: m.importance_score === null ? null : unit(m.importance_score),
    confidence: unit(m.confidence),
    source: m.source,
    verified: m.verified,
    version: m.version,
    expires_at: m.expires_at,
    occurred_at: m.occurred_at,
    updated_at: m.updated_at,
  };
}

/** A memory read by get or search: `current_retention` is the retention at this read (the access set it). */
export function readMemoryOut(m: MemoryView): z.infer<typeof ReadMemoryOut> {
  return { ...memoryOut(m), retention: m.current_retention === null ? null : unit(m.current_retention) };
}

/** One version of a memory's history. */
export const VersionOut = z.object({
  version: z.number().int().min(1),
  change: MemoryVersionViewSchema.shape.change.describe('create, update, or verify (a person confirmed it)'),
  content: z.string(),
  tags: z.array(z.string()),
  priority: view.priority,
  source: view.source,
  verified: z.boolean(),
  confidence: z.number().min(0).max(1),
  expires_at: dateTimeOut.nullable(),
  occurred_at: dateTimeOut.nullable().describe('when what this version says happened or was said; null in a version recorded before this was kept'),
  changed_by: MemoryVersionViewSchema.shape.actor_type.describe('who made the change: user (a person), mind_key (an agent using this mind), service_key (the application\'s backend) or system (the server itself, e.g. learning from a conversation)'),
  at: dateTimeOut,
});

/** The one-line handle of a memory in text answers: `fact/user_employer`. */
export const handle = (m: { category: string; key: string }): string => `${m.category}/${m.key}`;

/** The day a memory's event happened, for text answers: `, 2024-01-10` (empty when unknown). */
export const dated = (m: Pick<MemoryOut, 'occurred_at'>): string => (m.occurred_at ? `, ${m.occurred_at.slice(0, 10)}` : '');

/**
 * A memory in text answers: `fact/user_employer (v2, 2024-01-10): Works at Globex`. The day tells
 * a model reading two facts of the same thing which is newer (many clients show it only the text).
 */
export const line = (m: MemoryOut): string => `${handle(m)} (v${m.version}${dated(m)}): ${m.content}`;

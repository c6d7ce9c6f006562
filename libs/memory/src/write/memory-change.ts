import { contentHash } from '../content-hash';
import { emotionalEncoding } from '../lifecycle/emotion';
import { reencodeLifecycle } from '../lifecycle/encode';
import type { ImportancePath, ImportanceResult } from '../lifecycle/importance';
import type { LifecycleConfig } from '../lifecycle/lifecycle-config';
import { currentRetention } from '../lifecycle/access';
import type { MemoryLayer, MemoryPriority, MemoryType } from '../memory.constants';
import { provenanceOf, type Provenance, type WriterKind } from '../provenance';
import { normalizeTags } from '../tags';

/** What a writer states about a memory: compared field by field to tell a change from a repeat. */
export interface WrittenFields {
  content: string;
  content_hash: string;
  tags: string[];
  priority: MemoryPriority;
  source: Provenance['source'];
  verified: boolean;
  confidence: number;
  expires_at: Date | null;
  occurred_at: Date;
  memory_type: MemoryType;
  source_refs: string[];
  temporal_context: string | null;
  temporal_position: number | null;
  payload: Record<string, unknown>;
}

/** A stored memory as far as a write needs it (a repository row has these and more). */
export interface StoredMemory extends WrittenFields {
  version: number;
  layer: MemoryLayer;
  synaptic_consolidated: boolean;
  importance_score: number | null;
  importance_source: ImportancePath | null;
  current_retention: number | null;
  retention_at: Date | null;
  strength_days: number | null;
  access_count: number;
}

/** The fields a writer may set besides a memory's identity (category, key): the API's writable fields. */
export interface MemoryEdit {
  content?: string;
  tags?: string[];
  priority?: MemoryPriority;
  /** 0..1 */
  confidence?: number;
  /** ISO 8601; null clears the expiry. */
  expires_at?: string | null;
  /** ISO 8601 */
  occurred_at?: string;
  memory_type?: MemoryType;
  source_refs?: string[];
  /** null takes the memory out of its temporal context (and its position). */
  temporal_context?: string | null;
  /** null clears the position. */
  temporal_position?: number | null;
  payload?: Record<string, unknown>;
}

/** The change a write makes: the columns to set, a new version. The writer adds the vector columns when the content changed. */
export type MemoryPatch = Partial<WrittenFields> & {
  version: number;
  updated_at: Date;
  importance_score?: number;
  importance_source?: ImportancePath;
  emotional_weight?: number;
  layer?: MemoryLayer;
  initial_retention?: number;
  current_retention?: number;
  retention_at?: Date;
  strength_days?: number;
};

/** JSON with object keys sorted, so that jsonb's reordering of keys does not look like a change. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sameArray = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
// Tags are a set (seed 002 "태그"; each is stored once): the same tags in another order change nothing (a tester's find).
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** True when `next` states exactly what `current` holds (payload compared as JSON, key order ignored). */
export function sameWritten(current: WrittenFields, next: WrittenFields): boolean {
  return (
    next.content_hash === current.content_hash &&
    sameSet(next.tags, current.tags) &&
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
    canonicalJson(next.payload) === canonicalJson(current.payload)
  );
}

/**
 * What a change is in the memory's history (`GET /memory/:id/history`, `change`): `verify` when it
 * only confirms what the memory states: a person's write of the same content and fields, which
 * verifies it and keeps who stated it, as `POST /memory/:id/verify` does (seed 002 "검증"), with no
 * importance of its own; `update` otherwise.
 */
export function changeKind(current: StoredMemory, patch: MemoryPatch): 'verify' | 'update' {
  if (patch.verified !== true || current.verified || patch.importance_score !== undefined) return 'update';
  const next = { ...current, ...patch, source: current.source, verified: current.verified, confidence: current.confidence };
  return sameWritten(current, next) ? 'verify' : 'update';
}

/** Who writes, when, under which rules; `upsert` when the write names the memory by (category, key). */
export interface EditContext {
  writer: WriterKind;
  now: Date;
  config: LifecycleConfig;
  upsert: boolean;
  /** The write's importance: the caller's, or the scorer's for the content written. */
  importance?: ImportanceResult;
}

/**
 * The change an edit (`PUT /memory/:id`, or `POST /memory` of an existing key) makes to a
 * stored memory, or `undefined` when it changes nothing (seed 002 "upsert": the same content
 * again is not a new version).
 *
 * - Omitted fields keep their stored values, except that an upsert of an expired memory without
 *   `expires_at` clears the expiry (storing a key again brings it back), and new content without
 *   `occurred_at` (an upsert or a PUT) dates it `now` (the new statement is made now).
 * - Provenance follows {@link provenanceOf}: new content belongs to its writer.
 * - Importance: the caller's always counts; the scorer's only for new content, and never over an
 *   importance the caller set earlier. A counted importance that differs re-encodes the lifecycle
 *   ({@link reencodeLifecycle}, seed 001 §2): layer, retention and strength move with it.
 */
export function memoryChange(current: StoredMemory, edit: MemoryEdit, ctx: EditContext): MemoryPatch | undefined {
  const { now, config } = ctx;
  // The same words with other trailing whitespace (a newline a client appends) are the same content.
  const content = edit.content === undefined || edit.content.trimEnd() === current.content.trimEnd() ? current.content : edit.content;
  const hash = content === current.content ? current.content_hash : contentHash(content);
  const rescored = hash !== current.content_hash && current.importance_source !== 'caller';
  const counted = ctx.importance && (ctx.importance.path === 'caller' || rescored) ? ctx.importance : undefined;
  const revive = ctx.upsert && edit.expires_at === undefined && current.expires_at !== null && current.expires_at.getTime() <= now.getTime();
  const next: WrittenFields = {
    content,
    content_hash: hash,
    tags: edit.tags ? normalizeTags(edit.tags) : current.tags,
    priority: edit.priority ?? current.priority,
    ...provenanceOf(ctx.writer, edit.confidence, {
      source: current.source,
      verified: current.verified,
      confidence: current.confidence,
      contentUnchanged: hash === current.content_hash,
    }),
    expires_at: revive ? null : edit.expires_at === undefined ? current.expires_at : edit.expires_at === null ? null : new Date(edit.expires_at),
    // New content and no date states it now, by upsert or by PUT: the old date told of the old
    // content (a tester's: "works at Globex" kept Acme's 2023 date, and recall dated it so; a
    // peer's report tried on Engram: a PUT correction ranked as the older statement).
    occurred_at: edit.occurred_at ? new Date(edit.occurred_at) : hash !== current.content_hash ? now : current.occurred_at,
    memory_type: edit.memory_type ?? current.memory_type,
    source_refs: edit.source_refs ?? current.source_refs,
    temporal_context: edit.temporal_context === undefined ? current.temporal_context : edit.temporal_context,
    // Out of its context, a memory has no place in it either.
    temporal_position: edit.temporal_position === undefined ? (edit.temporal_context === null ? null : current.temporal_position) : edit.temporal_position,
    payload: edit.payload ?? current.payload,
  };
  const reimportance = counted && (hash !== current.content_hash || counted.score !== current.importance_score) ? counted : undefined;
  if (!reimportance && sameWritten(current, next)) return undefined;
  const patch: MemoryPatch = { ...next, version: current.version + 1, updated_at: now };
  if (!reimportance) return patch;
  const tracked = current.current_retention !== null && current.retention_at !== null && current.strength_days !== null;
  const retentionNow = tracked
    ? currentRetention(
        { current_retention: current.current_retention as number, retention_at: current.retention_at as Date, strength_days: current.strength_days as number, access_count: current.access_count },
        now,
        config,
      )
    : 0;
  return {
    ...patch,
    ...reencodeLifecycle({ layer: current.layer, synaptic: current.synaptic_consolidated }, retentionNow, reimportance.score, now, config, reimportance.path === 'caller'),
    importance_source: reimportance.path,
    emotional_weight: emotionalEncoding(content).weight,
  };
}

/**
 * The change of a memory replaced by another statement of it (an import's line for an existing
 * key): every written field is `next`'s; `undefined` when it states what the memory holds.
 * The lifecycle stays the stored one.
 */
export function replacementChange(current: WrittenFields & { version: number }, next: WrittenFields, now: Date): MemoryPatch | undefined {
  if (sameWritten(current, next)) return undefined;
  return { ...next, version: current.version + 1, updated_at: now };
}

import type { NewMemoryVersion } from '@engram/db';
import { DEFAULT_MEMORY_TYPE, contentHash, normalizeTags, replacementChange, type MemoryPatch, type WrittenFields } from '@engram/memory';
import type { RestoredMemory } from '@engram/services';
import type { MemoryLine, MemoryVersionLine } from './data-rights.dto';

// What an import writes, built from the file's lines (pure): the rows of new memories with their
// history, and the change of an existing memory the file states otherwise.

/** What a memory line states (content and what describes it), in the row's form. */
export function writtenFieldsOf(m: MemoryLine, occurredAt: Date): WrittenFields {
  return {
    content: m.content,
    content_hash: contentHash(m.content),
    tags: normalizeTags(m.tags),
    priority: m.priority,
    source: m.source,
    verified: m.verified,
    confidence: m.confidence,
    expires_at: m.expires_at === null ? null : new Date(m.expires_at),
    occurred_at: occurredAt,
    memory_type: m.memory_type ?? DEFAULT_MEMORY_TYPE[m.category],
    source_refs: m.source_refs,
    temporal_context: m.temporal_context,
    temporal_position: m.temporal_position,
    payload: m.payload,
  };
}

/**
 * The change the file makes to an existing memory of its key: every written field the line's
 * (its `occurred_at` only when the line has one), a new version; undefined when they match.
 */
export function importedChange(current: WrittenFields & { version: number }, m: MemoryLine, now: Date): MemoryPatch | undefined {
  return replacementChange(current, writtenFieldsOf(m, m.occurred_at ? new Date(m.occurred_at) : current.occurred_at), now);
}

/**
 * A new memory as the file holds it, with its lifecycle fields and whole history (a file
 * without history: its state is its first version, by the importer). Stored in full (the
 * tiering sweep compacts cold ones again) and waiting for a vector, except archived ones, which
 * stay out of the vector index until used.
 */
export function restoredMemory(
  m: MemoryLine,
  target: { mindId: string; id: string },
  history: readonly MemoryVersionLine[],
  importer: { userId: string; now: Date },
): RestoredMemory {
  const { now } = importer;
  const written = writtenFieldsOf(m, m.occurred_at ? new Date(m.occurred_at) : now);
  const row: RestoredMemory['row'] = {
    id: target.id,
    mind_id: target.mindId,
    category: m.category,
    key: m.key,
    ...written,
    payload: JSON.stringify(written.payload),
    restated_at: m.restated_at,
    created_at: m.created_at ?? now,
    updated_at: m.updated_at ?? now,
    version: m.version,
    layer: m.layer ?? 'long_term',
    importance_score: m.importance_score,
    initial_retention: m.initial_retention,
    current_retention: m.current_retention,
    strength_days: m.strength_days,
    last_reviewed: m.last_reviewed,
    review_schedule: m.review_schedule,
    next_review: m.next_review,
    review_count: m.review_count,
    access_count: m.access_count,
    last_accessed: m.last_accessed,
    consolidation_score: m.consolidation_score,
    forgotten_at: m.forgotten_at,
    storage_location: m.storage_location,
    tier: m.tier,
    association_graph: JSON.stringify(m.association_graph),
    semantic_tags: m.semantic_tags,
    retention_at: m.retention_at,
    importance_source: m.importance_source,
    emotional_weight: m.emotional_weight,
    hippocampus_dependency: m.hippocampus_dependency,
    synaptic_consolidated: m.synaptic_consolidated,
    compacted: false,
    content_z: null,
    embedding: null,
    embedding_model: null,
    embedding_status: m.tier === 'archive' ? 'archived' : 'pending',
    embedded_at: null,
  };
  const versions: NewMemoryVersion[] =
    history.length === 0
      ? [{ memory_id: target.id, version: m.version, mind_id: target.mindId, change: 'create', ...versionFields({ ...m, tags: written.tags }), ...statedFields({ ...written, importance_score: m.importance_score }), actor_type: 'user', actor_id: importer.userId, created_at: now }]
      : history.map((v) => ({
          memory_id: target.id,
          version: v.version,
          mind_id: target.mindId,
          change: v.change,
          ...versionFields(v),
          // An export made before versions recorded importance: the current version takes the
          // memory's, as migration 20261217000000 did for stored ones (helper 38's).
          ...statedFields({ ...v, importance_score: v.importance_score ?? (v.version === m.version ? m.importance_score : null) }),
          actor_type: v.actor_type,
          actor_id: v.actor_id,
          created_at: v.created_at,
        }));
  return { row, versions };
}

/** What else a version states (null where an older export's line did not record it). */
function statedFields(v: {
  occurred_at: Date | string | null;
  memory_type: NewMemoryVersion['memory_type'];
  payload: Record<string, unknown> | null;
  source_refs: string[] | null;
  temporal_context: string | null;
  temporal_position: number | null;
  importance_score: number | null;
}): Pick<NewMemoryVersion, 'occurred_at' | 'memory_type' | 'payload' | 'source_refs' | 'temporal_context' | 'temporal_position' | 'importance_score'> {
  return {
    occurred_at: v.occurred_at,
    memory_type: v.memory_type,
    payload: v.payload === null ? null : JSON.stringify(v.payload),
    source_refs: v.source_refs,
    temporal_context: v.temporal_context,
    temporal_position: v.temporal_position,
    importance_score: v.importance_score,
  };
}

type VersionFields = Pick<NewMemoryVersion, 'category' | 'key' | 'content' | 'tags' | 'priority' | 'source' | 'verified' | 'confidence' | 'expires_at'>;

/** The fields of a memory a version records. */
function versionFields(v: VersionFields): VersionFields {
  return { category: v.category, key: v.key, content: v.content, tags: v.tags, priority: v.priority, source: v.source, verified: v.verified, confidence: v.confidence, expires_at: v.expires_at };
}

import type { AssociationRow, MemoryRow, MemoryVersionRow } from '@engram/db';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A memory as the API answers it: snake_case fields (seed 002), ISO 8601 times. */
export function memoryView(row: MemoryRow) {
  // content_z has been inflated into content (CompactContentPlugin); the bytes are not for clients.
  const { content_z: _compressed, ...fields } = row;
  return {
    ...fields,
    expires_at: iso(row.expires_at),
    occurred_at: row.occurred_at.toISOString(),
    restated_at: iso(row.restated_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_reviewed: iso(row.last_reviewed),
    review_schedule: row.review_schedule.map((d) => d.toISOString()),
    next_review: iso(row.next_review),
    last_accessed: iso(row.last_accessed),
    forgotten_at: iso(row.forgotten_at),
    retention_at: iso(row.retention_at),
    embedded_at: iso(row.embedded_at),
  };
}

export type MemoryView = ReturnType<typeof memoryView>;

/** One entry of a memory's history. */
export function versionView(row: MemoryVersionRow) {
  return {
    version: row.version,
    change: row.change,
    category: row.category,
    key: row.key,
    content: row.content,
    tags: row.tags,
    priority: row.priority,
    source: row.source,
    verified: row.verified,
    confidence: row.confidence,
    expires_at: iso(row.expires_at),
    occurred_at: iso(row.occurred_at),
    memory_type: row.memory_type,
    payload: row.payload,
    source_refs: row.source_refs,
    temporal_context: row.temporal_context,
    temporal_position: row.temporal_position,
    importance_score: row.importance_score,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    created_at: row.created_at.toISOString(),
  };
}

/** One link of a memory: what the other memory is to it, how strongly, and the other memory in short. */
export function associationView(row: AssociationRow) {
  return {
    relation: row.relation,
    weight: row.weight,
    via: row.via,
    direction: row.direction,
    created_at: row.created_at.toISOString(),
    memory: { id: row.memory_id, category: row.category, key: row.key, content: row.content, memory_type: row.memory_type, occurred_at: row.occurred_at.toISOString() },
  };
}

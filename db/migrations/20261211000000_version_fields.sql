-- A version records every field a write can change (docs/api.md, history).
--
-- A memory's history kept its content, tags, priority, provenance and expiry, but not when the
-- event happened, its type, payload, source refs or temporal context: a write of the same content
-- with another `occurred_at` or payload made a new version that history showed identical to the
-- one before, and the old date and payload were gone (a tester's find). Issue 15 asks that the
-- history keep an old value "with when it was said". Versions recorded before this migration hold
-- null in these columns (not recorded), except each memory's current version, which takes the
-- memory's own values (they are what that version states).

alter table memory_versions
  add column occurred_at timestamptz,
  add column memory_type text,
  add column payload jsonb,
  add column source_refs text[],
  add column temporal_context text,
  add column temporal_position integer;

-- The join is on the distribution column (tenant_id), so Citus runs it on the colocated shards.
update memory_versions v
set occurred_at = m.occurred_at,
    memory_type = m.memory_type,
    payload = m.payload,
    source_refs = m.source_refs,
    temporal_context = m.temporal_context,
    temporal_position = m.temporal_position
from memories m
where m.tenant_id = v.tenant_id and m.id = v.memory_id and m.version = v.version;

-- A version records the memory's importance too (docs/api.md, history).
--
-- `importance` is a field a write sets (`PUT /memory/:id {"importance": 0.1}`, or the same key
-- and content posted with another `importance`), and such a write made a new version, but the
-- version did not hold it: history showed version 2 identical to version 1 and the webhook's
-- `memory.updated` said `changed: []` (a tester's find, after mem0's reports of history that
-- lost fields). Versions recorded before this migration hold null (not recorded), except each
-- memory's current version, which takes the memory's importance now (a repetition may have
-- raised it since that version; it is the closest value there is).

alter table memory_versions add column importance_score double precision;

-- The join is on the distribution column (tenant_id), so Citus runs it on the colocated shards.
update memory_versions v
set importance_score = m.importance_score
from memories m
where m.tenant_id = v.tenant_id and m.id = v.memory_id and m.version = v.version;

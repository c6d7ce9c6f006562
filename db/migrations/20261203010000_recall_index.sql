-- Recall reads a mind in its order (docs/design.md §6.5: priority critical → low, then newest):
-- with this index a recall of `limit` entries reads about `limit` rows of each priority instead
-- of sorting the whole mind (a million memories: 4.5-8.5 s, bench/RESULTS.md "Performance at
-- scale"), and the critical memories a recall with a question puts first are one range of it.
-- It replaces memories_importance_idx, which no statement orders by (the planner only took it as
-- a (tenant, mind) index), so a write maintains as many indexes as before.
drop index if exists memories_importance_idx;
create index memories_recall_idx on memories (tenant_id, mind_id, priority, updated_at desc, id desc);

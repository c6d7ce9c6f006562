-- Every search hit, recall entry and read by id updates its memory (access count, retention,
-- reinforcement; DESIGN §5). Measured at a million memories (bench/RESULTS.md, "scale"):
--
-- * rows are ~1.1 KB inline (the vector lives in TOAST), so fillfactor 90 left room for no new
--   version on a page: 4 updates in 10 were not HOT and each wrote every index, ivfflat
--   included (10-17 ms for the 10 hits of a search). 70 leaves room for two; pages written
--   before this keep their old packing until rewritten (VACUUM FULL memories, or pg_repack).
-- * a tenant's minds are disjoint, but the planner multiplied the selectivities of tenant_id and
--   mind_id (1 row estimated for a mind of 1 000) and read a whole mind through the wrong index
--   to find 10 ids. Functional dependency statistics tell it that mind_id implies tenant_id.
alter table memories set (fillfactor = 70);
create statistics memories_tenant_mind (dependencies, ndistinct) on tenant_id, mind_id from memories;
analyze memories;

-- The vector branch rebuilt for cost (issue 16, the read path): half-precision vectors kept in the
-- row, and an HNSW index over the memories of large minds only.
--
-- 1. `halfvec(768)` in the row. A `vector(768)` is 3,080 bytes: every row's went to TOAST (two
--    chunks), and an exact scan of a LoCoMo-size mind (419 memories) read 1,451 buffers, 1,257 of
--    them TOAST (bench/RESULTS.md, "Peers"). A `halfvec(768)` is 1,544 bytes, and with
--    `toast_tuple_target` at 4000 a row of usual size (~2.7 KB with its vector) stays whole in its
--    page; longer content is still compressed or moved out first. Half precision (11 significant
--    bits) moves cosine distances by about 1e-3: LoCoMo dev recall@10 was 0.738 before and after.
-- 2. HNSW, not ivfflat, and only over `vector_indexed` memories: those of minds of at least
--    LARGE_MIND_MEMORIES (10 000), which search reaches through the index; a smaller mind is
--    scanned exactly (`retrieval.exact_scan_below`) and its writes pay for no graph. On 100 000
--    distinct memories in one mind (bench:ann), HNSW (m 16, ef_construction 64) found the exact
--    top 10 at 0.96-0.98 for ef_search 40-200, ivfflat 0.88-0.94 for 10-40 probes of 100 lists;
--    ivfflat also needs its lists rebuilt as the table grows, HNSW does not.
--    The memories of a large mind not yet in the index (written before the mind was known large)
--    are scanned exactly beside it, through `memories_unindexed_idx`, until the tiering sweep
--    puts them in (libs/jobs TieringJob).
--
-- The table is rewritten (ALTER COLUMN TYPE) and the index built: minutes per million memories,
-- with writes blocked meanwhile (docs/runbook.md, "Deploying a new version"). Stored tenant
-- settings lose `retrieval.probes` (ivfflat's; `retrieval.ef_search` is HNSW's).
drop index if exists memories_embedding_idx;
alter table memories set (toast_tuple_target = 4000);
alter table memories alter column embedding type halfvec(768) using embedding::halfvec(768);
alter table memories add column vector_indexed boolean not null default false;
update memories m set vector_indexed = true
  from (select tenant_id, mind_id from memories group by tenant_id, mind_id having count(*) >= 10000) large
  where m.tenant_id = large.tenant_id and m.mind_id = large.mind_id;
create index memories_embedding_idx on memories using hnsw (embedding halfvec_cosine_ops) where vector_indexed;
create index memories_unindexed_idx on memories (tenant_id, mind_id) where not vector_indexed;
update tenants set settings = settings #- '{lifecycle,retrieval,probes}' where settings #> '{lifecycle,retrieval}' ? 'probes';

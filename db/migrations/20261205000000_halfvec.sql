-- Vectors as half-precision floats, kept in the row (issue 16, the read path).
--
-- A `vector(768)` is 3,080 bytes: every row's went to TOAST (two chunks), and an exact scan of a
-- LoCoMo-size mind (419 memories) read 1,451 buffers, 1,257 of them TOAST (bench/RESULTS.md,
-- "Peers"), about half of the vector branch's time. A `halfvec(768)` is 1,544 bytes, and with
-- `toast_tuple_target` at 4000 a row of usual size (~2.7 KB with its vector) stays whole in its
-- page: the scan reads the mind's rows and nothing else; longer content is still compressed or
-- moved out first. Half precision (11 significant bits) changes cosine distances by about 1e-3;
-- LoCoMo's recall@10 is measured before and after (bench/RESULTS.md). The vector index is half
-- as big, and so is the WAL of a write.
--
-- The table is rewritten (ALTER COLUMN TYPE): minutes per million memories, with writes blocked
-- meanwhile (docs/runbook.md, "Upgrading"). The ivfflat index is rebuilt with its lists sized for
-- the rows (libs/memory ivfflatLists; the vector index upkeep keeps them so afterwards).
drop index if exists memories_embedding_idx;
alter table memories set (toast_tuple_target = 4000);
alter table memories alter column embedding type halfvec(768) using embedding::halfvec(768);
do $$
declare
  n bigint := (select count(*) from memories where embedding is not null);
  lists integer := greatest(1, round(case when n <= 1000000 then n / 1000.0 else sqrt(n) end))::integer;
begin
  execute format('create index memories_embedding_idx on memories using ivfflat (embedding halfvec_cosine_ops) with (lists = %s)', lists);
  execute format('comment on index memories_embedding_idx is %L', json_build_object('rows', n, 'lists', lists, 'built_at', now())::text);
end
$$;

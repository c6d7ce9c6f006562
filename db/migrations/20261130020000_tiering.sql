-- Tiering with a real effect (DESIGN §5 tiers; issue "background work" §3).
-- hot, warm: the full text in `content`, the vector in the ivfflat index.
-- cold: compacted: `content` holds the gist (so full-text search indexes the gist, key words and
--   tags), `content_z` the brotli-compressed full text (null when the text is its own gist); the
--   vector stays.
-- archive: compacted as cold, and out of the vector index (embedding null, status 'archived');
--   found by its gist, key words, tags and metadata; rehydrated in full when accessed.
-- The API reads `content` through libs/db's CompactContentPlugin, which inflates `content_z`, so
-- every reader sees the full text whatever the tier.
alter table memories
  add column compacted boolean not null default false,
  add column content_z bytea;

alter table memories drop constraint memories_embedding_status_check;
alter table memories add constraint memories_embedding_status_check
  check (embedding_status in ('pending', 'ready', 'failed', 'archived'));

-- A writer that sets new content without touching content_z (every API write) makes the row
-- full again: the compressed text would otherwise be of the old content.
create function engram_content_written() returns trigger language plpgsql as $$
begin
  if new.content is distinct from old.content and new.content_z is not distinct from old.content_z then
    new.content_z := null;
    new.compacted := false;
  end if;
  return new;
end $$;
create trigger memories_content_written before update of content on memories
  for each row execute function engram_content_written();

-- The tiering sweep looks for rows whose storage does not match their tier.
create index memories_compaction_idx on memories (tenant_id, tier) where compacted;

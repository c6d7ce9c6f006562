-- The association graph (issue 19; seed 000 `associations` of episodic memories and `relations`
-- of semantic ones; docs/design.md §6.8): typed, weighted links between memories of one mind,
-- built in the background (libs/jobs AssociationJob) and followed one hop by search.
--
-- One row per link as it was found from `memory_id` (its nearest by vector, its neighbours in its
-- conversation, the memories that share one of its named things): a memory's own links are at
-- most `associations.per_relation` per relation; links found from other memories point at it as
-- well, and search and the API follow both directions. Rebuilt whole when the memory's content
-- changes (associated_at back to null). Generalisation links stay in association_graph, where the
-- consolidation writes them.
create table memory_associations (
  tenant_id   uuid not null,
  mind_id     uuid not null,
  memory_id   uuid not null,
  target_id   uuid not null check (target_id <> memory_id),
  relation    text not null check (relation in ('similar_to', 'precedes', 'follows', 'shares_entity', 'causes', 'effects')),
  -- 0..1: cosine similarity (similar_to), 1 / gap in positions (precedes, follows), the
  -- named thing's rarity in the mind (shares_entity).
  weight      double precision not null check (weight >= 0 and weight <= 1),
  -- The named thing shared (shares_entity), lower-cased; null for the other relations.
  via         text check (char_length(via) <= 200),
  created_at  timestamptz not null default now(),
  primary key (tenant_id, memory_id, relation, target_id)
);
-- The links that point at a memory: search and the API follow them backwards, and deleting or
-- evicting the memory deletes them (the foreign key's look-up).
create index memory_associations_target_idx on memory_associations (tenant_id, target_id);

alter table memory_associations enable row level security;
alter table memory_associations force row level security;
create policy tenant_isolation on memory_associations using (tenant_id = engram_current_tenant())
  with check (tenant_id = engram_current_tenant());
grant select, insert, update, delete on memory_associations to engram_app;

-- A Citus coordinator whose tables are already distributed (an upgrade; a fresh cluster
-- distributes after all migrations, libs/db citus.ts): the new table joins them, co-located by
-- tenant, before its foreign keys to memories, which Citus allows between co-located tables only.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'citus') then
    if exists (select 1 from pg_dist_partition where logicalrelid = 'memories'::regclass) then
      perform create_distributed_table('memory_associations', 'tenant_id', colocate_with => 'tenants');
    end if;
  end if;
end
$$;
-- One constraint a statement: Citus refuses an ALTER TABLE of a distributed table that adds a
-- constraint beside other subcommands.
alter table memory_associations add foreign key (tenant_id, memory_id) references memories (tenant_id, id) on delete cascade;
alter table memory_associations add foreign key (tenant_id, target_id) references memories (tenant_id, id) on delete cascade;

-- When the memory's links were last built (null: to build, once it has its vector or failed to
-- get one). Not indexed itself: the partial index below finds the rows to link, and a write that
-- does not touch content leaves it as it is.
alter table memories add column associated_at timestamptz;
create index memories_unlinked_idx on memories (tenant_id, id) where associated_at is null;

-- New content is a new memory to the graph: its links are built again. Compaction (content
-- becomes the gist with content_z set) and expansion do not change what the memory says. The
-- content trigger of 20261130020000_tiering, with one line more.
create or replace function engram_content_written() returns trigger language plpgsql as $$
begin
  if new.content is distinct from old.content and new.content_z is not distinct from old.content_z then
    new.content_z := null;
    new.compacted := false;
    new.associated_at := null;
  end if;
  return new;
end $$;

-- The association fan-out: one look-up for the tenants with memories to link (ids only), as for
-- pending embeddings.
grant select (tenant_id, associated_at) on memories to engram_auth;
create function engram_tenants_with_unlinked_memories()
  returns table (id uuid)
  language sql stable security definer set search_path = public, pg_temp
  as $$ select distinct m.tenant_id from memories m where m.associated_at is null and m.embedding_status <> 'pending' order by 1 $$;
alter function engram_tenants_with_unlinked_memories() owner to engram_auth;
revoke all on function engram_tenants_with_unlinked_memories() from public;
grant execute on function engram_tenants_with_unlinked_memories() to engram_app;

-- Background work (DESIGN §5 forgetting, §7 jobs): what eviction leaves behind. An evicted
-- memory is deleted with its history; its tombstone says which memory it was, when and why, so
-- that "what was forgotten, and why" keeps an answer (seed 001's users asked exactly that).
create table memory_tombstones (
  tenant_id          uuid not null references tenants (id) on delete cascade,
  memory_id          uuid not null,
  mind_id            uuid not null,
  category           text not null,
  key                text not null,
  reason             text not null check (reason in ('evicted')),
  -- Retention at eviction and the tier it was in.
  retention          double precision,
  tier               text not null,
  importance_score   double precision,
  access_count       integer not null,
  created_at         timestamptz not null,
  evicted_at         timestamptz not null,
  primary key (tenant_id, memory_id),
  foreign key (tenant_id, mind_id) references minds (tenant_id, id) on delete cascade
);
create index memory_tombstones_mind_idx on memory_tombstones (tenant_id, mind_id, evicted_at desc);

alter table memory_tombstones enable row level security;
alter table memory_tombstones force row level security;
create policy tenant_isolation on memory_tombstones
  using (tenant_id = engram_current_tenant()) with check (tenant_id = engram_current_tenant());
grant select, insert, delete on memory_tombstones to engram_app;

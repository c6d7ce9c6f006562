-- The memory lifecycle (DESIGN §4-§5, seeds 000 and 001): the anchor of the retention curve,
-- where importance came from, systems-consolidation state, the SQL forms of the retention
-- formulas (one definition each, tested against libs/memory), and the short-term memory buffer
-- of conversations.

alter table memories
  -- The instant `current_retention` refers to: R(t) = current_retention · exp(−(t − retention_at)_h / (24·S_eff)).
  add column retention_at timestamptz,
  add column importance_source text check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules')),
  add column emotional_weight double precision check (emotional_weight >= 0 and emotional_weight <= 1),
  -- Seed 000 systems consolidation: ×0.8 when the memory moves to the neocortex.
  add column hippocampus_dependency double precision not null default 1
    check (hippocampus_dependency >= 0 and hippocampus_dependency <= 1),
  -- Seed 000 synaptic consolidation: strength ×1.5 once, when an episode is consolidated.
  add column synaptic_consolidated boolean not null default false;

-- Every read updates the accessed rows (DESIGN §5 "On access"). No index covers a column that
-- update writes, and pages keep 10% free, so those updates stay HOT: no new index entries (GIN,
-- ivfflat) and no bloat of the indexes that search reads.
alter table memories set (fillfactor = 90);

-- S_eff = S·(1 + k·ln(1 + access_count)), at most cap·S (DESIGN §5, access reinforcement). Days.
create function engram_effective_strength(p_strength double precision, p_access_count integer, p_k double precision, p_cap double precision)
  returns double precision language sql immutable parallel safe
  as $$ select least(p_strength * (1 + p_k * ln(1 + greatest(p_access_count, 0))), p_cap * p_strength) $$;

-- R(now) = R_anchor · exp(−Δt_h / (24·S_eff)), Δt never negative; 0..1 (DESIGN §5, seed 001).
-- PostgreSQL raises an underflow error where JavaScript quietly gives 0 (exp of a very negative
-- number, a product of two tiny ones): below e^-700 (1e-304) retention is 0. One expression, no
-- FROM, so the planner inlines it into the queries that use it.
create function engram_retention_at(p_retention double precision, p_anchor timestamptz, p_strength_eff double precision, p_now timestamptz)
  returns double precision language sql immutable parallel safe
  as $$
    select case
      when p_retention <= 0
        or ln(p_retention) - greatest(extract(epoch from (p_now - p_anchor)), 0) / (86400.0 * p_strength_eff) < -700 then 0::float8
      else least(1, p_retention * exp(-greatest(extract(epoch from (p_now - p_anchor)), 0) / (86400.0 * p_strength_eff)))
    end
  $$;

-- The first scheduled review strictly after now, or null when the schedule is used up.
create function engram_next_review_after(p_schedule timestamptz[], p_now timestamptz)
  returns timestamptz language sql immutable parallel safe
  as $$ select min(s) from unnest(p_schedule) as s where s > p_now $$;

grant execute on function engram_effective_strength(double precision, integer, double precision, double precision),
  engram_retention_at(double precision, timestamptz, double precision, timestamptz),
  engram_next_review_after(timestamptz[], timestamptz) to engram_app;

-- Short-term memory of a conversation (seed 000 STM): at most `stm.capacity` entries per
-- (mind, conversation); they leave by consolidation to long-term memory, eviction or timeout.
create table stm_entries (
  tenant_id          uuid not null,
  id                 uuid not null,
  mind_id            uuid not null,
  conversation_id    text not null,
  content            text not null,
  speaker            text,
  message_ids        uuid[] not null,
  importance         double precision not null check (importance >= 0 and importance <= 1),
  importance_source  text not null check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules')),
  emotion            double precision not null check (emotion >= 0 and emotion <= 1),
  association        double precision not null check (association >= 0 and association <= 1),
  utility            double precision not null check (utility >= 0 and utility <= 1),
  mentions           integer not null check (mentions >= 1),
  rehearsal_count    integer not null default 0 check (rehearsal_count >= 0),
  decay_factor       double precision not null check (decay_factor > 0 and decay_factor <= 1),
  entered_at         timestamptz not null,
  last_rehearsed_at  timestamptz not null,
  -- Position of the entry in its buffer (insertion order; chunks take their first item's place).
  position           integer not null,
  chunk              jsonb,
  primary key (tenant_id, id),
  foreign key (tenant_id, mind_id) references minds (tenant_id, id) on delete cascade
);
create index stm_entries_conversation_idx on stm_entries (tenant_id, mind_id, conversation_id, position);
create index stm_entries_entered_idx on stm_entries (tenant_id, entered_at);

alter table stm_entries enable row level security;
alter table stm_entries force row level security;
create policy tenant_isolation on stm_entries
  using (tenant_id = engram_current_tenant()) with check (tenant_id = engram_current_tenant());
grant select, insert, update, delete on stm_entries to engram_app;

-- Where a message went: into STM, rehearsed an entry, or was below attention.
alter table messages
  add column stm_entry_id uuid,
  add column importance double precision check (importance >= 0 and importance <= 1),
  add column importance_source text check (importance_source in ('caller', 'explicit_save', 'llm', 'llm_regex', 'rules'));

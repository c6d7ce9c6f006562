-- Engram schema, version 1: tenants, users, minds, Mind Keys, memories (DESIGN §3, the
-- `memory_index` of seed 000 joined with the fields of seed 002), their versions, and the raw
-- inbound message log. Frozen: later changes go into new migrations.
--
-- Runs as the owner of the tables. The application runs as role engram_app, which owns nothing
-- and does not bypass row-level security; every tenant table FORCEs RLS on the
-- transaction-local setting app.tenant_id (DESIGN §2).

create extension if not exists vector;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'engram_app') then
    create role engram_app login nosuperuser nocreatedb nocreaterole nobypassrls;
  end if;
  -- Owns the two security-definer look-ups that must see across tenants before a tenant is
  -- known (login by e-mail, Mind Key by hash); it can read those two tables and nothing else.
  if not exists (select 1 from pg_roles where rolname = 'engram_auth') then
    create role engram_auth nologin nosuperuser nocreatedb nocreaterole nobypassrls;
  end if;
  -- Whoever migrates must be able to hand functions to engram_auth.
  execute format('grant engram_auth to %I', current_user);
end
$$;

-- The tenant of the current transaction, or null when none is set (then every policy is false).
create function engram_current_tenant() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('app.tenant_id', true), '')::uuid $$;

-- The text search document of a memory: content weighted A, key words and tags B.
-- Declared immutable (array_to_string is only stable in general, but is deterministic for
-- text[]), so it can feed a stored generated column.
create function engram_search_document(p_key text, p_content text, p_tags text[]) returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english'::regconfig, coalesce(p_content, '')), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(coalesce(p_key, ''), '_', ' ')), 'B')
        || setweight(to_tsvector('english'::regconfig, coalesce(array_to_string(p_tags, ' '), '')), 'B')
  $$;

create table tenants (
  id          uuid primary key,
  name        text not null check (char_length(name) between 1 and 200),
  settings    jsonb not null default '{}',
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);

create table users (
  tenant_id      uuid not null references tenants (id) on delete cascade,
  id             uuid not null,
  email          text not null check (char_length(email) between 3 and 320),
  password_hash  text not null,
  role           text not null check (role in ('owner', 'admin', 'member')),
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  primary key (tenant_id, id)
);
-- One account per e-mail address across the platform: login takes only e-mail and password.
create unique index users_email_key on users (lower(email));
create unique index users_id_key on users (id);

create table minds (
  tenant_id    uuid not null references tenants (id) on delete cascade,
  id           uuid not null,
  name         text not null check (char_length(name) between 1 and 200),
  description  text check (char_length(description) <= 2000),
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, name)
);

create table mind_keys (
  tenant_id     uuid not null,
  id            uuid not null,
  mind_id       uuid not null,
  name          text not null check (char_length(name) between 1 and 200),
  -- The first characters of the key, shown in listings so a person can tell keys apart.
  key_prefix    text not null,
  -- SHA-256 (hex) of the whole key; the key itself is never stored.
  key_hash      text not null,
  created_by    uuid,
  created_at    timestamptz not null default now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, mind_id) references minds (tenant_id, id) on delete cascade
);
create unique index mind_keys_hash_key on mind_keys (key_hash);
create index mind_keys_mind_idx on mind_keys (tenant_id, mind_id);

create table memories (
  tenant_id            uuid not null,
  id                   uuid not null,
  mind_id              uuid not null,
  -- identity (seed 002)
  category             text not null check (category in
                         ('identity', 'preference', 'fact', 'project', 'skill', 'mistake', 'context', 'note')),
  key                  text not null check (key ~ '^[a-z][a-z0-9_]*$' and char_length(key) <= 128),
  content              text not null check (char_length(content) > 0 and octet_length(content) <= 32768),
  tags                 text[] not null default '{}',
  priority             text not null default 'normal' check (priority in ('low', 'normal', 'high', 'critical')),
  source               text not null check (source in ('user', 'agent')),
  verified             boolean not null default false,
  confidence           double precision not null check (confidence >= 0 and confidence <= 1),
  expires_at           timestamptz,
  -- When the remembered event happened (seed 000's `timestamp`); defaults to the first write.
  occurred_at          timestamptz not null default now(),
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now(),
  version              integer not null default 1 check (version >= 1),
  -- cognition (seed 000 memory types and tiers; seed 001 layers, retention and reviews)
  memory_type          text not null default 'semantic'
                         check (memory_type in ('stm', 'episodic', 'semantic', 'procedural', 'working')),
  layer                text not null default 'long_term' check (layer in ('working', 'short_term', 'long_term')),
  importance_score     double precision check (importance_score >= 0 and importance_score <= 1),
  initial_retention    double precision check (initial_retention >= 0 and initial_retention <= 1),
  current_retention    double precision check (current_retention >= 0 and current_retention <= 1),
  strength_days        double precision check (strength_days > 0),
  last_reviewed        timestamptz,
  review_schedule      timestamptz[] not null default '{}',
  next_review          timestamptz,
  review_count         integer not null default 0 check (review_count >= 0),
  access_count         integer not null default 0 check (access_count >= 0),
  last_accessed        timestamptz,
  consolidation_score  double precision check (consolidation_score >= 0 and consolidation_score <= 1),
  forgotten_at         timestamptz,
  storage_location     text not null default 'hippocampus' check (storage_location in ('hippocampus', 'neocortex')),
  tier                 text not null default 'hot' check (tier in ('hot', 'warm', 'cold', 'archive')),
  -- content structure (seed 000)
  payload              jsonb not null default '{}',
  association_graph    jsonb not null default '{}',
  semantic_tags        text[] not null default '{}',
  temporal_position    integer,
  temporal_context     text,
  source_refs          text[] not null default '{}',
  content_hash         text not null,
  -- retrieval
  embedding            vector(768),
  embedding_model      text,
  search_vector        tsvector generated always as (engram_search_document(key, content, tags)) stored,
  primary key (tenant_id, id),
  unique (tenant_id, mind_id, category, key),
  foreign key (tenant_id, mind_id) references minds (tenant_id, id) on delete cascade
);
-- Listing newest first: ids are UUIDv7, so id order is creation order.
create index memories_mind_id_idx on memories (tenant_id, mind_id, id desc);
create index memories_mind_time_idx on memories (tenant_id, mind_id, occurred_at desc, temporal_position);
create index memories_importance_idx on memories (tenant_id, mind_id, importance_score desc);
create index memories_expires_idx on memories (tenant_id, mind_id, expires_at) where expires_at is not null;
create index memories_tags_idx on memories using gin (tags);
create index memories_semantic_tags_idx on memories using gin (semantic_tags);
create index memories_search_idx on memories using gin (search_vector);
-- One list while the table is empty; the vector index upkeep (npm run db:reindex) resizes it as rows come.
create index memories_embedding_idx on memories using ivfflat (embedding vector_cosine_ops) with (lists = 1);

-- Every state a memory has been in, one row per write (create, update, verify), so an upsert
-- never silently loses the old content (DESIGN §3).
create table memory_versions (
  tenant_id    uuid not null,
  memory_id    uuid not null,
  version      integer not null check (version >= 1),
  mind_id      uuid not null,
  change       text not null check (change in ('create', 'update', 'verify')),
  category     text not null,
  key          text not null,
  content      text not null,
  tags         text[] not null,
  priority     text not null,
  source       text not null,
  verified     boolean not null,
  confidence   double precision not null,
  expires_at   timestamptz,
  actor_type   text not null check (actor_type in ('user', 'mind_key', 'system')),
  actor_id     uuid,
  created_at   timestamptz not null default now(),
  primary key (tenant_id, memory_id, version),
  foreign key (tenant_id, memory_id) references memories (tenant_id, id) on delete cascade
);

-- The sensory register's log: conversation messages exactly as received, kept before any
-- scoring so a better scorer can re-process them (DESIGN §3).
create table messages (
  tenant_id        uuid not null,
  id               uuid not null,
  mind_id          uuid not null,
  conversation_id  text not null check (char_length(conversation_id) between 1 and 200),
  role             text not null check (role in ('user', 'assistant', 'system', 'tool')),
  speaker          text,
  content          text not null,
  metadata         jsonb not null default '{}',
  occurred_at      timestamptz not null default now(),
  received_at      timestamptz not null default now(),
  processed_at     timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, mind_id) references minds (tenant_id, id) on delete cascade
);
create index messages_conversation_idx on messages (tenant_id, mind_id, conversation_id, received_at);
create index messages_unprocessed_idx on messages (tenant_id, received_at) where processed_at is null;

-- Row-level security: every tenant table, forced, keyed on the transaction's tenant.
alter table tenants enable row level security;
alter table tenants force row level security;
create policy tenant_isolation on tenants
  using (id = engram_current_tenant()) with check (id = engram_current_tenant());

do $$
declare
  t text;
begin
  foreach t in array array['users', 'minds', 'mind_keys', 'memories', 'memory_versions', 'messages'] loop
    execute format('alter table %I enable row level security', t);
    execute format('alter table %I force row level security', t);
    execute format(
      'create policy tenant_isolation on %I using (tenant_id = engram_current_tenant()) '
      'with check (tenant_id = engram_current_tenant())', t);
  end loop;
end
$$;

-- The look-ups that run before the tenant is known read through these policies only.
create policy auth_lookup on users for select to engram_auth using (true);
create policy auth_lookup on mind_keys for select to engram_auth using (true);

grant usage on schema public to engram_app, engram_auth;
grant select, insert, update, delete on tenants, users, minds, mind_keys, memories, memory_versions, messages
  to engram_app;
grant select on users, mind_keys to engram_auth;

-- Login: the account for an e-mail address, in whichever tenant it lives.
create function auth_find_user_by_email(p_email text)
  returns table (tenant_id uuid, id uuid, password_hash text, role text)
  language sql stable security definer set search_path = public, pg_temp
  as $$ select u.tenant_id, u.id, u.password_hash, u.role from users u where lower(u.email) = lower(p_email) $$;

-- Agent authentication: the Mind Key with this SHA-256 hash, revoked or not.
create function auth_find_mind_key(p_key_hash text)
  returns table (tenant_id uuid, id uuid, mind_id uuid, revoked_at timestamptz, last_used_at timestamptz)
  language sql stable security definer set search_path = public, pg_temp
  as $$
    select k.tenant_id, k.id, k.mind_id, k.revoked_at, k.last_used_at from mind_keys k where k.key_hash = p_key_hash
  $$;

alter function auth_find_user_by_email(text) owner to engram_auth;
alter function auth_find_mind_key(text) owner to engram_auth;
revoke all on function auth_find_user_by_email(text), auth_find_mind_key(text) from public;
grant execute on function auth_find_user_by_email(text), auth_find_mind_key(text) to engram_app;
grant execute on function engram_current_tenant() to engram_app, engram_auth;

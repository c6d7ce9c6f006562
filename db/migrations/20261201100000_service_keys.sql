-- Tenant service keys and end-user minds (docs/design.md §2, issue 18).
--
-- A service key is a SaaS backend's credential: it belongs to a tenant, not to a mind, and acts
-- on any mind of its tenant within its scopes. Like a Mind Key it is 256 random bits shown once;
-- only its SHA-256 is stored, and it is found before its tenant is known through one
-- security-definer function owned by engram_auth.
create table service_keys (
  tenant_id     uuid not null references tenants (id) on delete cascade,
  id            uuid not null,
  name          text not null check (char_length(name) between 1 and 200),
  scopes        text[] not null check (
                  cardinality(scopes) between 1 and 3
                  and scopes <@ array['minds:manage', 'memories:read', 'memories:write']::text[]),
  key_prefix    text not null,
  key_hash      text not null,
  created_by    uuid,
  created_at    timestamptz not null default now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  primary key (tenant_id, id)
);
create unique index service_keys_hash_key on service_keys (key_hash);

alter table service_keys enable row level security;
alter table service_keys force row level security;
create policy tenant_isolation on service_keys
  using (tenant_id = engram_current_tenant()) with check (tenant_id = engram_current_tenant());
create policy auth_lookup on service_keys for select to engram_auth using (true);
grant select, insert, update, delete on service_keys to engram_app;
grant select on service_keys to engram_auth;

create function auth_find_service_key(p_key_hash text)
  returns table (tenant_id uuid, id uuid, scopes text[], revoked_at timestamptz, last_used_at timestamptz)
  language sql stable security definer set search_path = public, pg_temp
  as $$
    select k.tenant_id, k.id, k.scopes, k.revoked_at, k.last_used_at from service_keys k where k.key_hash = p_key_hash
  $$;
alter function auth_find_service_key(text) owner to engram_auth;
revoke all on function auth_find_service_key(text) from public;
grant execute on function auth_find_service_key(text) to engram_app;

-- The SaaS's own id for the end user a mind remembers (mem0's user_id): unique in its tenant,
-- so `PUT /v1/minds/by-external-id/:externalId` can get or create without a race.
alter table minds add column external_id text
  check (char_length(external_id) between 1 and 200);
create unique index minds_external_id_key on minds (tenant_id, external_id) where external_id is not null;

-- A service key's writes are recorded under their own actor type.
alter table memory_versions drop constraint memory_versions_actor_type_check;
alter table memory_versions add constraint memory_versions_actor_type_check
  check (actor_type in ('user', 'mind_key', 'service_key', 'system'));

-- Retrieval (DESIGN §6): the embedding status of each memory, and the temporal index that lets
-- a recalled memory cue its neighbours (seed 000 `idx_temporal`).

alter table memories
  -- pending: stored, not yet embedded (provider slow or down, or the model changed); ready; failed.
  add column embedding_status text not null default 'pending' check (embedding_status in ('pending', 'ready', 'failed')),
  add column embedded_at timestamptz,
  add column embedding_attempts integer not null default 0 check (embedding_attempts >= 0);

-- The embedding backfill finds its work without scanning the table.
create index memories_embedding_pending_idx on memories (tenant_id, id) where embedding_status <> 'ready';

-- Neighbours in time within one context (a conversation session, a document): seed 000's
-- temporal_context and temporal_position.
create index memories_temporal_idx on memories (tenant_id, mind_id, temporal_context, temporal_position)
  where temporal_position is not null;

-- Background work fans out per tenant (DESIGN §7) and must learn the tenants before it can set
-- one: this look-up returns their ids and nothing else.
grant select (id) on tenants to engram_auth;
create policy job_fan_out on tenants for select to engram_auth using (true);
create function engram_tenant_ids()
  returns table (id uuid)
  language sql stable security definer set search_path = public, pg_temp
  as $$ select t.id from tenants t order by t.id $$;
alter function engram_tenant_ids() owner to engram_auth;
revoke all on function engram_tenant_ids() from public;
grant execute on function engram_tenant_ids() to engram_app;

-- Per-request JWT check in one round trip (no transaction): the user's role if the user still
-- belongs to the tenant named by the token.
create function auth_user_role(p_tenant uuid, p_user uuid)
  returns text
  language sql stable security definer set search_path = public, pg_temp
  as $$ select u.role from users u where u.tenant_id = p_tenant and u.id = p_user $$;
alter function auth_user_role(uuid, uuid) owner to engram_auth;
revoke all on function auth_user_role(uuid, uuid) from public;
grant execute on function auth_user_role(uuid, uuid) to engram_app;

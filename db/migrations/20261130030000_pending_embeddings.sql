-- The embedding fan-out runs every few seconds (DESIGN §7): one look-up for the tenants with
-- memories waiting for a vector, instead of a query per tenant. It returns tenant ids only.
grant select (tenant_id, embedding_status) on memories to engram_auth;
create policy embedding_fan_out on memories for select to engram_auth using (true);
create function engram_tenants_with_pending_embeddings()
  returns table (id uuid)
  language sql stable security definer set search_path = public, pg_temp
  as $$ select distinct m.tenant_id from memories m where m.embedding_status = 'pending' order by 1 $$;
alter function engram_tenants_with_pending_embeddings() owner to engram_auth;
revoke all on function engram_tenants_with_pending_embeddings() from public;
grant execute on function engram_tenants_with_pending_embeddings() to engram_app;

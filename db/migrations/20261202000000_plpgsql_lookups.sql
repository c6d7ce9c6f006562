-- The security-definer look-ups that take parameters and read a table that Citus distributes
-- (docs/design.md §1, "Citus"), in PL/pgSQL instead of SQL. Citus cannot plan a statement of an
-- SQL function whose parameters reach a distributed table ("could not create distributed plan:
-- possibly this is caused by the use of parameters in SQL functions"); PL/pgSQL hands it the
-- values. Same names, signatures, owners, grants and results on every database: a
-- security-definer function is never inlined, so nothing is lost on plain PostgreSQL or PGlite.
-- Frozen: later changes go into new migrations.

create or replace function auth_find_mind_key(p_key_hash text)
  returns table (tenant_id uuid, id uuid, mind_id uuid, revoked_at timestamptz, last_used_at timestamptz)
  language plpgsql stable security definer set search_path = public, pg_temp
  as $$
  begin
    return query
      select k.tenant_id, k.id, k.mind_id, k.revoked_at, k.last_used_at from mind_keys k where k.key_hash = p_key_hash;
  end
  $$;

create or replace function auth_find_service_key(p_key_hash text)
  returns table (tenant_id uuid, id uuid, scopes text[], revoked_at timestamptz, last_used_at timestamptz)
  language plpgsql stable security definer set search_path = public, pg_temp
  as $$
  begin
    return query
      select k.tenant_id, k.id, k.scopes, k.revoked_at, k.last_used_at from service_keys k where k.key_hash = p_key_hash;
  end
  $$;

create or replace function engram_webhook_deliveries_due(p_lost_after_seconds double precision, p_limit integer)
  returns table (tenant_id uuid, id uuid)
  language plpgsql stable security definer set search_path = public, pg_temp
  as $$
  begin
    return query
      select d.tenant_id, d.id from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now() - make_interval(secs => p_lost_after_seconds)
      order by d.next_attempt_at
      limit p_limit;
  end
  $$;

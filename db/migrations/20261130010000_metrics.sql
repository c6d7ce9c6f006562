-- Metrics (Prometheus /metrics on the API and the worker): how many memories there are per layer
-- and tier, over every tenant. The app role sees one tenant at a time (RLS), and a count per
-- tenant would cost a round trip per tenant for the same table scan. This look-up returns
-- aggregate counts only: no tenant, no id, no content.
--
-- It runs as engram_metrics, a role that can log in nowhere and read three columns of memories
-- (layer, tier, forgotten_at) across tenants, nothing else; engram_auth keeps its narrow job.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'engram_metrics') then
    create role engram_metrics nologin nosuperuser nocreatedb nocreaterole nobypassrls;
  end if;
  -- Whoever migrates must be able to hand the function to engram_metrics.
  execute format('grant engram_metrics to %I', current_user);
end
$$;

grant usage on schema public to engram_metrics;
grant select (layer, tier, forgotten_at) on memories to engram_metrics;
create policy metrics_counts on memories for select to engram_metrics using (true);

-- One scan of memories, grouped; no index is added for it: layer, tier and forgotten_at are
-- written by promotion and the sweeps, and an index on them would make those updates non-HOT
-- (see 20261129200000_lifecycle). Callers cache the answer for a few seconds.
create function engram_memory_counts()
  returns table (layer text, tier text, live bigint, forgotten bigint)
  language sql stable security definer set search_path = public, pg_temp
  as $$
    select m.layer, m.tier,
           count(*) filter (where m.forgotten_at is null),
           count(*) filter (where m.forgotten_at is not null)
    from memories m
    group by m.layer, m.tier
  $$;
alter function engram_memory_counts() owner to engram_metrics;
revoke all on function engram_memory_counts() from public;
grant execute on function engram_memory_counts() to engram_app;

-- Full-text matching through the GIN index (DESIGN §6). Under row-level security the planner may
-- not evaluate a qual that is not leakproof before the policy's, and `@@` is not leakproof: the
-- app role's searches could only read a mind row by row through its b-tree and test each
-- memory (a second for a mind of 100 000; bench/RESULTS.md, "scale"). This look-up runs as
-- engram_auth, which the policy below lets see every row of the columns granted, so the GIN
-- index serves the match; the body keeps it to the tenant the transaction is set to.
-- It returns ids only, at most p_limit of them. PL/pgSQL planned for each call's values
-- (force_custom_plan): a generic plan cannot tell a rare word (the GIN index) from a common one
-- (the mind's b-tree until the limit), and a wrong guess reads the whole mind.
grant select (id, mind_id, search_vector) on memories to engram_auth;
create policy text_match on memories for select to engram_auth using (true);
create function engram_text_match(p_tenant uuid, p_mind uuid, p_query tsquery, p_limit integer)
  returns table (id uuid)
  language plpgsql stable security definer set search_path = public, pg_temp set plan_cache_mode = force_custom_plan
  as $$
  begin
    return query
      select m.id from memories m
      where p_tenant = engram_current_tenant() and m.tenant_id = p_tenant and m.mind_id = p_mind and m.search_vector @@ p_query
      limit p_limit;
  end
  $$;
alter function engram_text_match(uuid, uuid, tsquery, integer) owner to engram_auth;
revoke all on function engram_text_match(uuid, uuid, tsquery, integer) from public;
grant execute on function engram_text_match(uuid, uuid, tsquery, integer) to engram_app;

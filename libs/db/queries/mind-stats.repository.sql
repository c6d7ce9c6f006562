-- The SQL of MindStatsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MindStatsRepository.mindSize
select
  count(*)::int as n
from
  memories
where
  tenant_id = $1
  and mind_id = $2;

-- MindStatsRepository.mindHasAtLeast
select
  count(*) >= $1::int as yes
from
  (
    select
      1
    from
      memories
    where
      tenant_id = $2
      and mind_id = $3
    limit
      $4
  ) m;

-- MindStatsRepository.meanLength
select
  coalesce(avg(length(content)), 1)::float8 as avgdl
from
  (
    select
      content,
      search_vector
    from
      memories
    where
      tenant_id = $1
      and mind_id = $2
    order by
      id desc
    limit
      $3
  ) s;

-- MindStatsRepository.documentFrequencies
select
  c.l,
  (
    select
      count(*)::int
    from
      engram_text_match ($1, $2, c.q, $3)
  ) as df
from
  tenants t
  cross join unnest($4::text[], $5::tsquery[]) as c (l, q)
where
  t.id = $6 /* prepared */;

-- MindStatsRepository.sampleShares
select
  c.l,
  (
    select
      count(*) filter (
        where
          s.search_vector @@ c.q
      )::float8 / greatest(count(*), 1)
    from
      (
        select
          content,
          search_vector
        from
          memories
        where
          tenant_id = $1
          and mind_id = $2
        order by
          id desc
        limit
          $3
      ) s
  ) as share
from
  unnest($4::text[], $5::tsquery[]) as c (l, q);

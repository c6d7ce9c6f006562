-- The SQL of MemorySweepsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MemorySweepsRepository.snapshotRetention
update memories
set
  current_retention = coalesce(
    engram_retention_at (
      current_retention,
      retention_at,
      engram_effective_strength (
        strength_days,
        access_count,
        $1::float8,
        $2::float8
      ),
      $3::timestamptz
    ),
    1
  ),
  retention_at = $4::timestamptz
where
  tenant_id = $5
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $6
      and current_retention is not null
      and retention_at < $7::timestamptz - interval '1 hour'
    limit
      $8
    for update
      skip locked
  );

-- MemorySweepsRepository.softForget
update memories
set
  forgotten_at = $1::timestamptz
where
  tenant_id = $2
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $3
      and (
        forgotten_at is null
        and priority <> 'critical'
        and current_retention is not null
        and (
          cardinality(review_schedule) = 0
          or review_schedule[1] <= $4::timestamptz
        )
        and coalesce(
          engram_retention_at (
            current_retention,
            retention_at,
            engram_effective_strength (
              strength_days,
              access_count,
              $5::float8,
              $6::float8
            ),
            $7::timestamptz
          ),
          1
        ) < $8::float8
      )
    limit
      $9
    for update
      skip locked
  );

-- MemorySweepsRepository.evict
with
  gone as (
    delete from memories
    where
      tenant_id = $1
      and id in (
        select
          id
        from
          memories
        where
          tenant_id = $2
          and (
            priority <> 'critical'
            and tier = 'archive'
            and current_retention is not null
            and created_at <= $3::timestamptz - make_interval(secs => $4::float8)
            and coalesce(
              engram_retention_at (
                current_retention,
                retention_at,
                engram_effective_strength (
                  strength_days,
                  access_count,
                  $5::float8,
                  $6::float8
                ),
                $7::timestamptz
              ),
              1
            ) < $8::float8
          )
        limit
          $9
        for update
          skip locked
      )
    returning
      tenant_id,
      id,
      mind_id,
      category,
      key,
      tier,
      importance_score,
      access_count,
      created_at,
      coalesce(
        engram_retention_at (
          current_retention,
          retention_at,
          engram_effective_strength (
            strength_days,
            access_count,
            $10::float8,
            $11::float8
          ),
          $12::timestamptz
        ),
        1
      ) as retention
  )
insert into
  memory_tombstones (
    tenant_id,
    memory_id,
    mind_id,
    category,
    key,
    reason,
    retention,
    tier,
    importance_score,
    access_count,
    created_at,
    evicted_at
  )
select
  tenant_id,
  id,
  mind_id,
  category,
  key,
  'evicted',
  retention,
  tier,
  importance_score,
  access_count,
  created_at,
  $13::timestamptz
from
  gone
on conflict (tenant_id, memory_id) do nothing;

-- MemorySweepsRepository.retier
update memories
set
  tier = (
    case
      when (
        extract(
          epoch
          from
            ($1::timestamptz - created_at)
        ) / 86400.0
      ) < $2::float8 then 'hot'
      when (
        access_count / greatest(
          (
            extract(
              epoch
              from
                ($3::timestamptz - created_at)
            ) / 86400.0
          ),
          2.220446049250313e-16
        )
      ) > $4::float8 then 'hot'
      when (
        access_count / greatest(
          (
            extract(
              epoch
              from
                ($5::timestamptz - created_at)
            ) / 86400.0
          ),
          2.220446049250313e-16
        )
      ) > $6::float8 then 'warm'
      when (
        access_count / greatest(
          (
            extract(
              epoch
              from
                ($7::timestamptz - created_at)
            ) / 86400.0
          ),
          2.220446049250313e-16
        )
      ) > $8::float8 then 'cold'
      else 'archive'
    end
  )
where
  tenant_id = $9
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $10
      and tier <> (
        case
          when (
            extract(
              epoch
              from
                ($11::timestamptz - created_at)
            ) / 86400.0
          ) < $12::float8 then 'hot'
          when (
            access_count / greatest(
              (
                extract(
                  epoch
                  from
                    ($13::timestamptz - created_at)
                ) / 86400.0
              ),
              2.220446049250313e-16
            )
          ) > $14::float8 then 'hot'
          when (
            access_count / greatest(
              (
                extract(
                  epoch
                  from
                    ($15::timestamptz - created_at)
                ) / 86400.0
              ),
              2.220446049250313e-16
            )
          ) > $16::float8 then 'warm'
          when (
            access_count / greatest(
              (
                extract(
                  epoch
                  from
                    ($17::timestamptz - created_at)
                ) / 86400.0
              ),
              2.220446049250313e-16
            )
          ) > $18::float8 then 'cold'
          else 'archive'
        end
      )
    limit
      $19
    for update
      skip locked
  );

-- MemorySweepsRepository.leaveVectorIndex
update memories
set
  embedding = null,
  embedding_status = 'archived',
  embedded_at = null
where
  tenant_id = $1
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $2
      and embedding_status <> 'archived'
      and (
        tier = 'archive'
        or (
          expires_at is not null
          and expires_at <= $3::timestamptz
        )
      )
    limit
      $4
    for update
      skip locked
  );

-- MemorySweepsRepository.rejoinVectorIndex
update memories
set
  embedding_status = 'pending',
  embedding_attempts = 0
where
  tenant_id = $1
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $2
      and embedding_status = 'archived'
      and tier <> 'archive'
      and (
        expires_at is null
        or expires_at > $3::timestamptz
      )
    limit
      $4
    for update
      skip locked
  );

-- MemorySweepsRepository.toCompact
select
  id,
  content
from
  memories
where
  tenant_id = $1
  and not compacted
  and tier in ('cold', 'archive')
limit
  $2
for update
  skip locked;

-- MemorySweepsRepository.storeCompacted
update memories m
set
  compacted = true,
  content = c.gist,
  content_z = c.z
from
  unnest($1::uuid[], $2::text[], $3::bytea[]) as c (id, gist, z)
where
  m.tenant_id = $4
  and m.id = c.id;

-- MemorySweepsRepository.toExpand
select
  "id",
  "content",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "compacted" = $2
  and "tier" in ($3, $4)
limit
  $5
for update
  skip locked;

-- MemorySweepsRepository.storeExpanded
update memories m
set
  compacted = false,
  content = c.content,
  content_z = null
from
  unnest($1::uuid[], $2::text[]) as c (id, content)
where
  m.tenant_id = $3
  and m.id = c.id;

-- MemorySweepsRepository.moveToNeocortex
update memories
set
  storage_location = 'neocortex',
  hippocampus_dependency = hippocampus_dependency * $1::float8
where
  tenant_id = $2
  and id in (
    select
      id
    from
      memories
    where
      tenant_id = $3
      and (
        storage_location = 'hippocampus'
        and extract(
          epoch
          from
            ($4::timestamptz - least(occurred_at, created_at))
        ) / 86400.0 > $5::float8
      )
    limit
      $6
    for update
      skip locked
  );

-- MemorySweepsRepository.mindsWithEpisodesToGeneralise
select distinct
  mind_id
from
  memories
where
  tenant_id = $1
  and memory_type = 'episodic'
  and storage_location = 'neocortex'
  and forgotten_at is null
  and not (association_graph ? 'generalised_into');

-- MemorySweepsRepository.episodesToGeneralise
select
  "id",
  "content",
  "content_z",
  "occurred_at",
  "importance_score",
  "tags"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "memory_type" = $3
  and "storage_location" = $4
  and "forgotten_at" is null
  and not (association_graph ? 'generalised_into')
order by
  "occurred_at",
  "id"
limit
  $5;

-- MemorySweepsRepository.linkGeneralised
update memories
set
  association_graph = association_graph || jsonb_build_object('generalised_into', $1::text)
where
  tenant_id = $2
  and id = any ($3::uuid[])
  and not (association_graph ? 'generalised_into');

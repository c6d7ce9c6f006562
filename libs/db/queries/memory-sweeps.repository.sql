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
with
  rows as (
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
      )
    returning
      tenant_id,
      id,
      mind_id,
      category,
      key
  ),
  events as (
    insert into
      webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
    select
      r.tenant_id,
      engram_uuid_v7 (),
      e.id,
      $10::text,
      jsonb_build_object(
        'type',
        $11::text,
        'timestamp',
        $12::text,
        'data',
        jsonb_build_object(
          'mind_id',
          r.mind_id,
          'memory_id',
          r.id,
          'category',
          r.category,
          'key',
          r.key
        ) || jsonb_build_object('forgotten_at', $13::text)
      )
    from
      rows r
      join webhook_endpoints e on e.tenant_id = $14
      and e.tenant_id = r.tenant_id
      and e.enabled
      and $15::text = any (e.event_types)
    returning
      id
  )
select
  (
    select
      count(*)
    from
      rows
  )::int as changed,
  coalesce(
    (
      select
        array_agg(id)
      from
        events
    ),
    '{}'::uuid[]
  ) as deliveries;

-- MemorySweepsRepository.evict
with
  rows as (
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
  ),
  relinked as (
    update memories
    set
      associated_at = null
    where
      tenant_id = $13
      and associated_at is not null
      and id in (
        select
          a.memory_id
        from
          memory_associations a
        where
          a.tenant_id = $14
          and a.target_id in (
            select
              id
            from
              rows
          )
          and a.relation in ('precedes', 'follows')
      )
  ),
  tombstones as (
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
      $15::timestamptz
    from
      rows
    on conflict (tenant_id, memory_id) do nothing
  ),
  events as (
    insert into
      webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
    select
      r.tenant_id,
      engram_uuid_v7 (),
      e.id,
      $16::text,
      jsonb_build_object(
        'type',
        $17::text,
        'timestamp',
        $18::text,
        'data',
        jsonb_build_object(
          'mind_id',
          r.mind_id,
          'memory_id',
          r.id,
          'category',
          r.category,
          'key',
          r.key
        ) || jsonb_build_object('evicted_at', $19::text, 'retention', r.retention)
      )
    from
      rows r
      join webhook_endpoints e on e.tenant_id = $20
      and e.tenant_id = r.tenant_id
      and e.enabled
      and $21::text = any (e.event_types)
    returning
      id
  )
select
  (
    select
      count(*)
    from
      rows
  )::int as changed,
  coalesce(
    (
      select
        array_agg(id)
      from
        events
    ),
    '{}'::uuid[]
  ) as deliveries;

-- MemorySweepsRepository.announceExpired
with
  rows as (
    update memories
    set
      expiry_announced_at = expires_at
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
            expires_at is not null
            and expires_at <= $3::timestamptz
          )
          and expiry_announced_at is distinct from expires_at
        limit
          $4
        for update
          skip locked
      )
    returning
      tenant_id,
      id,
      mind_id,
      category,
      key,
      expires_at
  ),
  events as (
    insert into
      webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
    select
      r.tenant_id,
      engram_uuid_v7 (),
      e.id,
      $5::text,
      jsonb_build_object(
        'type',
        $6::text,
        'timestamp',
        $7::text,
        'data',
        jsonb_build_object(
          'mind_id',
          r.mind_id,
          'memory_id',
          r.id,
          'category',
          r.category,
          'key',
          r.key
        ) || jsonb_build_object(
          'expires_at',
          to_char(
            r.expires_at at time zone 'UTC',
            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
          )
        )
      )
    from
      rows r
      join webhook_endpoints e on e.tenant_id = $8
      and e.tenant_id = r.tenant_id
      and e.enabled
      and $9::text = any (e.event_types)
    returning
      id
  )
select
  (
    select
      count(*)
    from
      rows
  )::int as changed,
  coalesce(
    (
      select
        array_agg(id)
      from
        events
    ),
    '{}'::uuid[]
  ) as deliveries;

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

-- MemorySweepsRepository.indexLargeMinds
update memories
set
  vector_indexed = true
where
  tenant_id = $1
  and id in (
    select
      m.id
    from
      (
        select
          mind_id
        from
          memories
        where
          tenant_id = $2
        group by
          mind_id
        having
          count(*) >= $3::int
      ) large
      join memories m on m.tenant_id = $4
      and m.mind_id = large.mind_id
      and not m.vector_indexed
    limit
      $5
    for update of
      m skip locked
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

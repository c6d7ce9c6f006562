-- The SQL of MemoriesRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MemoriesRepository.insertIfAbsent
insert into
  "memories" (
    "id",
    "mind_id",
    "category",
    "key",
    "content",
    "content_hash",
    "source",
    "confidence",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7, $8, $9)
on conflict ("tenant_id", "mind_id", "category", "key") do nothing
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.insertMany
insert into
  "memories" (
    "id",
    "mind_id",
    "category",
    "key",
    "content",
    "content_hash",
    "source",
    "confidence",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- MemoriesRepository.findByKeyForUpdate
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "category" = $3
  and "key" = $4
for update;

-- MemoriesRepository.findByKeysForUpdate
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and (mind_id, category, key) in (
    select
      *
    from
      unnest($2::uuid[], $3::text[], $4::text[])
  )
for update;

-- MemoriesRepository.takenIds
select
  "id"
from
  "memories"
where
  "tenant_id" = $1
  and "id" in ($2);

-- MemoriesRepository.findById (plain)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3;

-- MemoriesRepository.findById (for update)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3
for update;

-- MemoriesRepository.findByIds
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" in ($3, $4);

-- MemoriesRepository.update
update "memories"
set
  "content" = $1,
  "version" = $2
where
  "tenant_id" = $3
  and "mind_id" = $4
  and "id" = $5
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.recordAccess
update "memories"
set
  "access_count" = least(access_count::bigint + 1, 2147483647)::int,
  "last_accessed" = $1::timestamptz,
  "current_retention" = (
    case
      when current_retention is null then null
      else (
        case
          when (
            next_review is not null
            and $2::timestamptz >= next_review
          ) then least(
            1,
            coalesce(
              engram_retention_at (
                current_retention,
                retention_at,
                engram_effective_strength (
                  strength_days,
                  access_count,
                  $3::float8,
                  $4::float8
                ),
                $5::timestamptz
              ),
              1
            ) + $6::float8 * (
              1 - coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $7::float8,
                    $8::float8
                  ),
                  $9::timestamptz
                ),
                1
              )
            )
          )
          else coalesce(
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
          )
        end
      )
    end
  ),
  "retention_at" = (
    case
      when current_retention is null then retention_at
      else $13::timestamptz
    end
  ),
  "review_count" = least(
    review_count::bigint + (
      case
        when (
          next_review is not null
          and $14::timestamptz >= next_review
        ) then 1
        else 0
      end
    ),
    2147483647
  )::int,
  "last_reviewed" = (
    case
      when (
        next_review is not null
        and $15::timestamptz >= next_review
      ) then $16::timestamptz
      else last_reviewed
    end
  ),
  "next_review" = (
    case
      when (
        next_review is not null
        and $17::timestamptz >= next_review
      ) then engram_next_review_after (review_schedule, $18::timestamptz)
      else next_review
    end
  ),
  "layer" = (
    case
      when (
        layer <> 'long_term'
        and (
          access_count + 1 >= $19::int
          or $20::timestamptz - least(occurred_at, created_at) > make_interval(secs => $21::float8)
          or coalesce(importance_score, 0) >= $22::float8
        )
      ) then (
        case layer
          when 'working' then 'short_term'
          else 'long_term'
        end
      )
      else layer
    end
  ),
  "strength_days" = (
    case
      when (
        layer <> 'long_term'
        and (
          access_count + 1 >= $23::int
          or $24::timestamptz - least(occurred_at, created_at) > make_interval(secs => $25::float8)
          or coalesce(importance_score, 0) >= $26::float8
        )
      )
      and strength_days is not null then round(
        (
          strength_days * (
            case layer
              when 'working' then $27::float8
              else $28::float8
            end
          )
        )::numeric,
        12
      )::float8
      else strength_days
    end
  ),
  "forgotten_at" = (
    case
      when (
        layer <> 'long_term'
        and (
          access_count + 1 >= $29::int
          or $30::timestamptz - least(occurred_at, created_at) > make_interval(secs => $31::float8)
          or coalesce(importance_score, 0) >= $32::float8
        )
      )
      or (
        case
          when (
            next_review is not null
            and $33::timestamptz >= next_review
          ) then least(
            1,
            coalesce(
              engram_retention_at (
                current_retention,
                retention_at,
                engram_effective_strength (
                  strength_days,
                  access_count,
                  $34::float8,
                  $35::float8
                ),
                $36::timestamptz
              ),
              1
            ) + $37::float8 * (
              1 - coalesce(
                engram_retention_at (
                  current_retention,
                  retention_at,
                  engram_effective_strength (
                    strength_days,
                    access_count,
                    $38::float8,
                    $39::float8
                  ),
                  $40::timestamptz
                ),
                1
              )
            )
          )
          else coalesce(
            engram_retention_at (
              current_retention,
              retention_at,
              engram_effective_strength (
                strength_days,
                access_count,
                $41::float8,
                $42::float8
              ),
              $43::timestamptz
            ),
            1
          )
        end
      ) >= $44::float8 then null
      else forgotten_at
    end
  ),
  "tier" = (
    case
      when tier = 'archive' then 'warm'
      else tier
    end
  ),
  "embedding_status" = (
    case
      when tier = 'archive'
      and embedding_status = 'archived' then 'pending'
      else embedding_status
    end
  ),
  "embedding_attempts" = (
    case
      when tier = 'archive'
      and embedding_status = 'archived' then 0
      else embedding_attempts
    end
  )
where
  "tenant_id" = $45
  and "mind_id" = $46
  and "id" in ($47)
returning
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z";

-- MemoriesRepository.delete
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" = $3;

-- MemoriesRepository.deleteForMind
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- MemoriesRepository.list
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    (
      expires_at is null
      or expires_at > $3::timestamptz
    )
    and category = $4
    and tags @> $5::text[]
  )
  and "id" < $6
order by
  "id" desc
limit
  $7;

-- MemoriesRepository.pageOfMind
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" > $3
order by
  "id"
limit
  $4;

-- MemoriesRepository.expiring
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "expires_at" > $3
  and "expires_at" <= $4
order by
  "expires_at" asc,
  "id" asc
limit
  $5;

-- MemoriesRepository.recall (all)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    expires_at is null
    or expires_at > $3::timestamptz
  )
  and "forgotten_at" is null
order by
  array_position(
    array['critical', 'high', 'normal', 'low']::text[],
    priority
  ),
  "updated_at" desc,
  "id" desc
limit
  $4;

-- MemoriesRepository.recall (critical)
select
  "id",
  "mind_id",
  "category",
  "key",
  "content",
  "tags",
  "priority",
  "source",
  "verified",
  "confidence",
  "expires_at",
  "occurred_at",
  "created_at",
  "updated_at",
  "version",
  "memory_type",
  "layer",
  "importance_score",
  "initial_retention",
  "current_retention",
  "strength_days",
  "last_reviewed",
  "review_schedule",
  "next_review",
  "review_count",
  "access_count",
  "last_accessed",
  "consolidation_score",
  "forgotten_at",
  "storage_location",
  "tier",
  "payload",
  "association_graph",
  "semantic_tags",
  "temporal_position",
  "temporal_context",
  "source_refs",
  "content_hash",
  "embedding_model",
  "retention_at",
  "importance_source",
  "emotional_weight",
  "hippocampus_dependency",
  "synaptic_consolidated",
  "embedding_status",
  "embedded_at",
  "compacted",
  "content_z"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "priority" = $3
  and (
    expires_at is null
    or expires_at > $4::timestamptz
  )
  and "forgotten_at" is null
order by
  array_position(
    array['critical', 'high', 'normal', 'low']::text[],
    priority
  ),
  "updated_at" desc,
  "id" desc
limit
  $5;

-- MemoriesRepository.recallCounts
select
  count(*)::int as "total",
  (
    count(*) filter (
      where
        verified
    )
  )::int as "verified"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and (
    expires_at is null
    or expires_at > $3::timestamptz
  )
  and "forgotten_at" is null;

-- MemoriesRepository.countsByLayerAndTier
select
  "layer",
  "tier",
  count(*)::int as "n",
  (
    count(*) filter (
      where
        forgotten_at is not null
    )
  )::int as "forgotten",
  (
    count(*) filter (
      where
        (
          expires_at is not null
          and expires_at <= $1::timestamptz
        )
    )
  )::int as "expired"
from
  "memories"
where
  "tenant_id" = $2
  and "mind_id" = $3
group by
  "layer",
  "tier";

-- MemoriesRepository.rescaleStrength
update memories
set
  strength_days = $1::float8 * (
    case layer
      when 'working' then $2::float8
      when 'short_term' then $3::float8
      else $4::float8
    end
  ) * (
    case
      when synaptic_consolidated then $5::float8
      else 1
    end
  )
where
  tenant_id = $6
  and strength_days is not null;

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
  "restated_at",
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
  "restated_at",
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
  "restated_at",
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
  "restated_at",
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
  and "id" = $3 /* prepared */;

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
  "restated_at",
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
for update
  /* prepared */;

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
  "restated_at",
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
  and id = any ($3::uuid[]) /* prepared */;

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
  "restated_at",
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

-- MemoriesRepository.deleteReturning
with
  rows as (
    delete from memories
    where
      tenant_id = $1
      and mind_id = $2
      and id = $3
    returning
      id,
      mind_id,
      category,
      key
  ),
  relinked as (
    update memories
    set
      associated_at = null
    where
      tenant_id = $4
      and associated_at is not null
      and id in (
        select
          a.memory_id
        from
          memory_associations a
        where
          a.tenant_id = $5
          and a.target_id in (
            select
              id
            from
              rows
          )
          and a.relation in ('precedes', 'follows')
      )
  )
select
  id,
  mind_id,
  category,
  key
from
  rows;

-- MemoriesRepository.deleteForMind
delete from "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- MemoriesRepository.factKeys
select
  "category",
  "key"
from
  "memories"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "memory_type" <> $3
order by
  "updated_at" desc
limit
  $4;

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
  "restated_at",
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
  "restated_at",
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
  "restated_at",
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
  "m"."id",
  "m"."mind_id",
  "m"."category",
  "m"."key",
  "m"."content",
  "m"."tags",
  "m"."priority",
  "m"."source",
  "m"."verified",
  "m"."confidence",
  "m"."expires_at",
  "m"."occurred_at",
  "m"."restated_at",
  "m"."created_at",
  "m"."updated_at",
  "m"."version",
  "m"."memory_type",
  "m"."layer",
  "m"."importance_score",
  "m"."initial_retention",
  "m"."current_retention",
  "m"."strength_days",
  "m"."last_reviewed",
  "m"."review_schedule",
  "m"."next_review",
  "m"."review_count",
  "m"."access_count",
  "m"."last_accessed",
  "m"."consolidation_score",
  "m"."forgotten_at",
  "m"."storage_location",
  "m"."tier",
  "m"."payload",
  "m"."association_graph",
  "m"."semantic_tags",
  "m"."temporal_position",
  "m"."temporal_context",
  "m"."source_refs",
  "m"."content_hash",
  "m"."embedding_model",
  "m"."retention_at",
  "m"."importance_source",
  "m"."emotional_weight",
  "m"."hippocampus_dependency",
  "m"."synaptic_consolidated",
  "m"."embedding_status",
  "m"."embedded_at",
  "m"."compacted",
  "m"."content_z"
from
  (
    (
      select
        $1::int as recall_rank,
        r.*
      from
        (
          (
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
              "restated_at",
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
              "tenant_id" = $2
              and "mind_id" = $3
              and "priority" = $4
              and (
                expires_at is null
                or expires_at > $5::timestamptz
              )
              and "forgotten_at" is null
            order by
              "updated_at" desc,
              "id" desc
            limit
              $6
          )
        ) r
    )
    union all
    (
      select
        $7::int as recall_rank,
        r.*
      from
        (
          (
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
              "restated_at",
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
              "tenant_id" = $8
              and "mind_id" = $9
              and "priority" = $10
              and (
                expires_at is null
                or expires_at > $11::timestamptz
              )
              and "forgotten_at" is null
            order by
              "updated_at" desc,
              "id" desc
            limit
              $12
          )
        ) r
    )
    union all
    (
      select
        $13::int as recall_rank,
        r.*
      from
        (
          (
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
              "restated_at",
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
              "tenant_id" = $14
              and "mind_id" = $15
              and "priority" = $16
              and (
                expires_at is null
                or expires_at > $17::timestamptz
              )
              and "forgotten_at" is null
            order by
              "updated_at" desc,
              "id" desc
            limit
              $18
          )
        ) r
    )
    union all
    (
      select
        $19::int as recall_rank,
        r.*
      from
        (
          (
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
              "restated_at",
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
              "tenant_id" = $20
              and "mind_id" = $21
              and "priority" = $22
              and (
                expires_at is null
                or expires_at > $23::timestamptz
              )
              and "forgotten_at" is null
            order by
              "updated_at" desc,
              "id" desc
            limit
              $24
          )
        ) r
    )
  ) m
order by
  m.recall_rank,
  m.updated_at desc,
  m.id desc
limit
  $25 /* prepared */;

-- MemoriesRepository.recall (critical)
select
  "m"."id",
  "m"."mind_id",
  "m"."category",
  "m"."key",
  "m"."content",
  "m"."tags",
  "m"."priority",
  "m"."source",
  "m"."verified",
  "m"."confidence",
  "m"."expires_at",
  "m"."occurred_at",
  "m"."restated_at",
  "m"."created_at",
  "m"."updated_at",
  "m"."version",
  "m"."memory_type",
  "m"."layer",
  "m"."importance_score",
  "m"."initial_retention",
  "m"."current_retention",
  "m"."strength_days",
  "m"."last_reviewed",
  "m"."review_schedule",
  "m"."next_review",
  "m"."review_count",
  "m"."access_count",
  "m"."last_accessed",
  "m"."consolidation_score",
  "m"."forgotten_at",
  "m"."storage_location",
  "m"."tier",
  "m"."payload",
  "m"."association_graph",
  "m"."semantic_tags",
  "m"."temporal_position",
  "m"."temporal_context",
  "m"."source_refs",
  "m"."content_hash",
  "m"."embedding_model",
  "m"."retention_at",
  "m"."importance_source",
  "m"."emotional_weight",
  "m"."hippocampus_dependency",
  "m"."synaptic_consolidated",
  "m"."embedding_status",
  "m"."embedded_at",
  "m"."compacted",
  "m"."content_z"
from
  (
    (
      select
        $1::int as recall_rank,
        r.*
      from
        (
          (
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
              "restated_at",
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
              "tenant_id" = $2
              and "mind_id" = $3
              and "priority" = $4
              and (
                expires_at is null
                or expires_at > $5::timestamptz
              )
              and "forgotten_at" is null
            order by
              "updated_at" desc,
              "id" desc
            limit
              $6
          )
        ) r
    )
  ) m
order by
  m.recall_rank,
  m.updated_at desc,
  m.id desc
limit
  $7 /* prepared */;

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
  and "forgotten_at" is null /* prepared */;

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
    case
      when layer = 'working' then $2::float8
      when layer = 'short_term' then $3::float8
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

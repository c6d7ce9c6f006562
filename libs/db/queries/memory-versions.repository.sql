-- The SQL of MemoryVersionsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MemoryVersionsRepository.record
insert into
  "memory_versions" (
    "tenant_id",
    "memory_id",
    "version",
    "mind_id",
    "change",
    "category",
    "key",
    "content",
    "tags",
    "priority",
    "source",
    "verified",
    "confidence",
    "expires_at",
    "actor_type",
    "actor_id",
    "created_at"
  )
values
  (
    $1,
    $2,
    $3,
    $4,
    $5,
    $6,
    $7,
    $8,
    $9,
    $10,
    $11,
    $12,
    $13,
    $14,
    $15,
    $16,
    $17
  );

-- MemoryVersionsRepository.list
select
  "memory_id",
  "version",
  "mind_id",
  "change",
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
  "memory_type",
  "payload",
  "source_refs",
  "temporal_context",
  "temporal_position",
  "importance_score",
  "actor_type",
  "actor_id",
  "created_at"
from
  "memory_versions"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "memory_id" = $3
order by
  "version" desc;

-- MemoryVersionsRepository.insertMany
insert into
  "memory_versions" (
    "memory_id",
    "version",
    "mind_id",
    "change",
    "category",
    "key",
    "content",
    "tags",
    "priority",
    "source",
    "verified",
    "confidence",
    "expires_at",
    "actor_type",
    "actor_id",
    "created_at",
    "tenant_id"
  )
values
  (
    $1,
    $2,
    $3,
    $4,
    $5,
    $6,
    $7,
    $8,
    $9,
    $10,
    $11,
    $12,
    $13,
    $14,
    $15,
    $16,
    $17
  );

-- MemoryVersionsRepository.forMemories
select
  "memory_id",
  "version",
  "mind_id",
  "change",
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
  "memory_type",
  "payload",
  "source_refs",
  "temporal_context",
  "temporal_position",
  "importance_score",
  "actor_type",
  "actor_id",
  "created_at"
from
  "memory_versions"
where
  "tenant_id" = $1
  and "memory_id" in ($2)
order by
  "memory_id",
  "version";

-- MemoryVersionsRepository.deleteForMind
delete from "memory_versions"
where
  "tenant_id" = $1
  and "mind_id" = $2;

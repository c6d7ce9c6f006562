-- The SQL of MindKeysRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MindKeysRepository.create
insert into
  "mind_keys" (
    "id",
    "mind_id",
    "name",
    "key_prefix",
    "key_hash",
    "created_by",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7)
returning
  "id",
  "mind_id",
  "name",
  "key_prefix",
  "created_by",
  "created_at",
  "last_used_at",
  "revoked_at";

-- MindKeysRepository.listForMind
select
  "id",
  "mind_id",
  "name",
  "key_prefix",
  "created_by",
  "created_at",
  "last_used_at",
  "revoked_at"
from
  "mind_keys"
where
  "tenant_id" = $1
  and "mind_id" = $2
order by
  "id" desc;

-- MindKeysRepository.revoke
update "mind_keys"
set
  "revoked_at" = coalesce(revoked_at, $1)
where
  "tenant_id" = $2
  and "mind_id" = $3
  and "id" = $4;

-- MindKeysRepository.touch
update "mind_keys"
set
  "last_used_at" = $1
where
  "tenant_id" = $2
  and "id" = $3;

-- MindKeysRepository.findByHash
select
  *
from
  auth_find_mind_key ($1);

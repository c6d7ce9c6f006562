-- The SQL of ServiceKeysRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- ServiceKeysRepository.create
insert into
  "service_keys" (
    "id",
    "name",
    "scopes",
    "key_prefix",
    "key_hash",
    "created_by",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7)
returning
  "id",
  "name",
  "scopes",
  "key_prefix",
  "created_by",
  "created_at",
  "last_used_at",
  "revoked_at";

-- ServiceKeysRepository.list
select
  "id",
  "name",
  "scopes",
  "key_prefix",
  "created_by",
  "created_at",
  "last_used_at",
  "revoked_at"
from
  "service_keys"
where
  "tenant_id" = $1
  and "id" < $2
order by
  "id" desc
limit
  $3;

-- ServiceKeysRepository.revoke
update "service_keys"
set
  "revoked_at" = coalesce(revoked_at, $1)
where
  "tenant_id" = $2
  and "id" = $3;

-- ServiceKeysRepository.touch
update "service_keys"
set
  "last_used_at" = $1
where
  "tenant_id" = $2
  and "id" = $3;

-- ServiceKeysRepository.findByHash
select
  *
from
  auth_find_service_key ($1);

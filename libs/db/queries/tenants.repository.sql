-- The SQL of TenantsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- TenantsRepository.create
insert into
  "tenants" ("id", "name")
values
  ($1, $2)
returning
  *;

-- TenantsRepository.find
select
  *
from
  "tenants"
where
  "id" = $1;

-- TenantsRepository.findForUpdate
select
  *
from
  "tenants"
where
  "id" = $1
for update;

-- TenantsRepository.delete
delete from "users"
where
  "tenant_id" = $1;

delete from "tenants"
where
  "id" = $1;

-- TenantsRepository.settings
select
  "settings"
from
  "tenants"
where
  "id" = $1;

-- TenantsRepository.setSettingsSection
update "tenants"
set
  "settings" = jsonb_set(
    "settings",
    '{lifecycle}'::text[],
    $1::jsonb,
    true
  ),
  "updated_at" = now()
where
  "id" = $2;

-- TenantsRepository.allIds
select
  id
from
  engram_tenant_ids ();

-- TenantsRepository.withPendingEmbeddings
select
  id
from
  engram_tenants_with_pending_embeddings ();

-- TenantsRepository.withUnlinkedMemories
select
  id
from
  engram_tenants_with_unlinked_memories ();

-- The SQL of MindsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MindsRepository.create
insert into
  "minds" (
    "id",
    "name",
    "description",
    "external_id",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5)
returning
  *;

-- MindsRepository.findById (plain)
select
  *
from
  "minds"
where
  "tenant_id" = $1
  and "id" = $2;

-- MindsRepository.findById (for update)
select
  *
from
  "minds"
where
  "tenant_id" = $1
  and "id" = $2
for update;

-- MindsRepository.findOrCreateByExternalId
insert into
  "minds" (
    "id",
    "name",
    "description",
    "external_id",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5)
on conflict ("tenant_id", "external_id")
where
  "external_id" is not null do nothing
returning
  *;

select
  *
from
  "minds"
where
  "tenant_id" = $1
  and "external_id" = $2;

-- MindsRepository.findByIdOrName
select
  *
from
  "minds"
where
  "tenant_id" = $1
  and (
    "id" = $2
    or "name" = $3
    or "external_id" = $4
  );

-- MindsRepository.list
select
  *
from
  "minds"
where
  "tenant_id" = $1
  and "id" < $2
  and "name" = $3
  and "external_id" = $4
order by
  "id" desc
limit
  $5;

-- MindsRepository.page
select
  *
from
  "minds"
where
  "tenant_id" = $1
  and "id" > $2
order by
  "id"
limit
  $3;

-- MindsRepository.delete
delete from "minds"
where
  "tenant_id" = $1
  and "id" = $2;

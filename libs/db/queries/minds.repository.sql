-- The SQL of MindsRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MindsRepository.create
insert into
  "minds" ("id", "name", "description", "tenant_id")
values
  ($1, $2, $3, $4)
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
order by
  "id" desc
limit
  $4;

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

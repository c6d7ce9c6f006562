-- The SQL of UsersRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- UsersRepository.create
insert into
  "users" (
    "id",
    "email",
    "password_hash",
    "role",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5)
returning
  *;

-- UsersRepository.findById
select
  *
from
  "users"
where
  "tenant_id" = $1
  and "id" = $2;

-- UsersRepository.roleOf
select
  auth_user_role ($1::uuid, $2::uuid) as role;

-- UsersRepository.findCredentialsByEmail
select
  *
from
  auth_find_user_by_email ($1);

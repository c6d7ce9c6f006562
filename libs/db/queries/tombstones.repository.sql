-- The SQL of TombstonesRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- TombstonesRepository.deleteForMind
delete from "memory_tombstones"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- The SQL of SystemRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- SystemRepository.ping
select
  1;

-- SystemRepository.memoryCounts
select
  layer,
  tier,
  live,
  forgotten
from
  engram_memory_counts ();

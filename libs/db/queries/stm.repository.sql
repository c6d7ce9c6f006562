-- The SQL of StmRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- StmRepository.lockConversation
select
  pg_advisory_xact_lock(hashtextextended ($1, 0));

select
  "id"
from
  "minds"
where
  "tenant_id" = $1
  and "id" = $2
for key share;

-- StmRepository.list
select
  *
from
  "stm_entries"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "conversation_id" = $3
order by
  "position";

-- StmRepository.conversationsWithEntries (tenant)
select distinct
  "mind_id",
  "conversation_id"
from
  "stm_entries"
where
  "tenant_id" = $1;

-- StmRepository.conversationsWithEntries (mind)
select distinct
  "mind_id",
  "conversation_id"
from
  "stm_entries"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- StmRepository.deleteForMind
delete from "stm_entries"
where
  "tenant_id" = $1
  and "mind_id" = $2;

-- StmRepository.save (empty)
delete from "stm_entries"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "conversation_id" = $3;

-- StmRepository.save (entries)
delete from "stm_entries"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "conversation_id" = $3
  and "id" not in ($4);

insert into
  "stm_entries" (
    "tenant_id",
    "id",
    "mind_id",
    "conversation_id",
    "content",
    "speaker",
    "message_ids",
    "importance",
    "importance_source",
    "emotion",
    "association",
    "utility",
    "mentions",
    "rehearsal_count",
    "decay_factor",
    "entered_at",
    "last_rehearsed_at",
    "position",
    "chunk"
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
    $17,
    $18,
    $19
  )
on conflict ("tenant_id", "id") do update
set
  "content" = "excluded"."content",
  "message_ids" = "excluded"."message_ids",
  "mentions" = "excluded"."mentions",
  "rehearsal_count" = "excluded"."rehearsal_count",
  "decay_factor" = "excluded"."decay_factor",
  "last_rehearsed_at" = "excluded"."last_rehearsed_at",
  "association" = "excluded"."association",
  "importance" = "excluded"."importance",
  "importance_source" = "excluded"."importance_source",
  "emotion" = "excluded"."emotion",
  "position" = "excluded"."position",
  "chunk" = "excluded"."chunk";

-- The SQL of MessagesRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- MessagesRepository.insert
insert into
  "messages" (
    "id",
    "conversation_id",
    "client_id",
    "role",
    "speaker",
    "content",
    "metadata",
    "occurred_at",
    "received_at",
    "tenant_id",
    "mind_id"
  )
values
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
on conflict (
  "tenant_id",
  "mind_id",
  "conversation_id",
  "client_id"
)
where
  "client_id" is not null do nothing
returning
  "id";

-- MessagesRepository.position
select
  (
    select
      count(*)::int
    from
      messages m
    where
      m.tenant_id = $1
      and m.mind_id = $2
      and m.conversation_id = $3
      and (least(m.occurred_at, m.received_at), m.id) < (least(x.occurred_at, x.received_at), x.id)
  ) as n
from
  messages x
where
  x.tenant_id = $4
  and x.id = $5
  and x.mind_id = $6
  and x.conversation_id = $7;

-- MessagesRepository.markProcessed
update "messages"
set
  "stm_entry_id" = $1,
  "importance" = $2,
  "importance_source" = $3,
  "processed_at" = $4
where
  "tenant_id" = $5
  and "id" = $6;

-- MessagesRepository.speakers
select
  "id",
  coalesce(speaker, role) as "speaker"
from
  "messages"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "id" in ($3);

-- MessagesRepository.page
select
  *
from
  "messages"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "conversation_id" = $3
  and (occurred_at, id) > ($4, $5::uuid)
order by
  "occurred_at",
  "id"
limit
  $6;

-- MessagesRepository.lastBefore
select
  "id",
  "speaker",
  "role",
  "content"
from
  "messages"
where
  "tenant_id" = $1
  and "mind_id" = $2
  and "conversation_id" = $3
  and "occurred_at" <= $4
order by
  "occurred_at" desc,
  "id" desc
limit
  $5;

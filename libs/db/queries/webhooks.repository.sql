-- The SQL of WebhooksRepository (libs/db/src/repositories), written by `npm run sql:generate`: do not edit.

-- WebhooksRepository.createEndpoint
insert into
  "webhook_endpoints" (
    "id",
    "url",
    "description",
    "event_types",
    "secret",
    "tenant_id"
  )
values
  ($1, $2, $3, $4, $5, $6)
returning
  *;

-- WebhooksRepository.findEndpoint
select
  *
from
  "webhook_endpoints"
where
  "tenant_id" = $1
  and "id" = $2;

-- WebhooksRepository.listEndpoints
select
  *
from
  "webhook_endpoints"
where
  "tenant_id" = $1
  and "id" < $2
order by
  "id" desc
limit
  $3;

-- WebhooksRepository.updateEndpoint
update "webhook_endpoints"
set
  "enabled" = $1,
  "disabled_reason" = $2,
  "updated_at" = now()
where
  "tenant_id" = $3
  and "id" = $4
returning
  *;

-- WebhooksRepository.deleteEndpoint
delete from "webhook_endpoints"
where
  "tenant_id" = $1
  and "id" = $2;

-- WebhooksRepository.subscribedTypes
select distinct
  unnest(event_types) as type
from
  webhook_endpoints
where
  tenant_id = $1
  and enabled;

-- WebhooksRepository.deleteForMind
delete from "webhook_deliveries"
where
  "tenant_id" = $1
  and payload -> 'data' ->> 'mind_id' = $2;

-- WebhooksRepository.deleteForMemory
delete from "webhook_deliveries"
where
  "tenant_id" = $1
  and "memory_id" = $2;

-- WebhooksRepository.emit
insert into
  webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
select
  $1,
  engram_uuid_v7 (),
  e.id,
  ev.type,
  ev.payload
from
  unnest($2::text[], $3::jsonb[]) with ordinality as ev (type, payload, n)
  join webhook_endpoints e on e.tenant_id = $4
  and e.enabled
  and ev.type = any (e.event_types)
order by
  ev.n
returning
  id;

-- WebhooksRepository.findDelivery
select
  *
from
  "webhook_deliveries"
where
  "tenant_id" = $1
  and "endpoint_id" = $2
  and "id" = $3;

-- WebhooksRepository.listDeliveries
select
  *
from
  "webhook_deliveries"
where
  "tenant_id" = $1
  and "endpoint_id" = $2
  and "id" < $3
  and "status" = $4
order by
  "id" desc
limit
  $5;

-- WebhooksRepository.findForAttempt
select
  "d".*,
  "e"."url",
  "e"."secret",
  "e"."enabled"
from
  "webhook_deliveries" as "d"
  inner join "webhook_endpoints" as "e" on "e"."tenant_id" = "d"."tenant_id"
  and "e"."id" = "d"."endpoint_id"
where
  "d"."tenant_id" = $1
  and "d"."id" = $2;

-- WebhooksRepository.recordAttempt
update "webhook_deliveries"
set
  "status" = $1,
  "attempts" = attempts + 1,
  "last_status_code" = $2,
  "last_error" = $3,
  "delivered_at" = $4,
  "next_attempt_at" = now() + make_interval(secs => $5::float8)
where
  "tenant_id" = $6
  and "id" = $7
  and "status" = $8;

-- WebhooksRepository.resetForRetry
update "webhook_deliveries"
set
  "status" = $1,
  "attempts" = $2,
  "next_attempt_at" = now(),
  "delivered_at" = $3
where
  "tenant_id" = $4
  and "endpoint_id" = $5
  and "id" = $6
returning
  *;

-- WebhooksRepository.due
select
  tenant_id,
  id
from
  engram_webhook_deliveries_due ($1::float8, $2::int);

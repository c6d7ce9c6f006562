-- Webhooks (docs/webhooks.md): a tenant's endpoints and the deliveries of its memory events,
-- written as a transactional outbox: a delivery row is inserted in the same transaction as the
-- change it announces, so an event is never announced for a change that rolled back, nor lost
-- for one that committed. The rows are the source of truth of delivery state; a queue message
-- (BullMQ, or the in-process dispatcher of embedded mode) only says "attempt this one now".
-- Frozen: later changes go into new migrations.

-- UUIDv7 in SQL (RFC 9562 §5.7: 48 bits of Unix milliseconds, then random bits), for the
-- deliveries the set-based sweeps insert: their ids sort by creation like the app's (newId),
-- which the deliveries listing (newest first) and its cursor rely on. PostgreSQL 18 has
-- uuidv7(); 15-17 and PGlite do not.
create function engram_uuid_v7() returns uuid
  language sql volatile parallel safe
  as $$
    select encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
             placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6),
           52, 1), 53, 1), 'hex')::uuid
  $$;
grant execute on function engram_uuid_v7() to engram_app;

create table webhook_endpoints (
  tenant_id        uuid not null references tenants (id) on delete cascade,
  id               uuid not null,
  url              text not null check (char_length(url) between 1 and 2048),
  description      text check (char_length(description) <= 2000),
  -- The event types it receives: a subset of libs/db WEBHOOK_EVENT_TYPES (checked by the API).
  event_types      text[] not null check (cardinality(event_types) between 1 and 20),
  -- `whsec_` + base64 of 32 random bytes (Standard Webhooks). Kept in clear, unlike keys: an
  -- HMAC is computed with it on every delivery, so a hash would not do.
  secret           text not null,
  enabled          boolean not null default true,
  -- Why it was disabled, when the service did it (null when enabled, or disabled by a person).
  disabled_reason  text check (char_length(disabled_reason) <= 2000),
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  primary key (tenant_id, id)
);

create table webhook_deliveries (
  tenant_id         uuid not null,
  -- The Standard Webhooks message id (`webhook-id`): the same on every attempt, so a receiver
  -- can drop a duplicate (delivery is at least once). UUIDv7: id order is creation order.
  id                uuid not null,
  endpoint_id       uuid not null,
  event_type        text not null check (event_type in
                      ('memory.created', 'memory.updated', 'memory.deleted', 'memory.soft_forgotten',
                       'memory.evicted', 'memory.consolidated', 'memory.expired')),
  -- The body sent, `{type, timestamp, data}`; signed as sent, byte for byte, on every attempt.
  payload           jsonb not null,
  status            text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts          integer not null default 0 check (attempts >= 0),
  last_status_code  integer,
  last_error        text,
  -- When the next attempt is due (database time); null once succeeded or failed.
  next_attempt_at   timestamptz default now(),
  created_at        timestamptz not null default now(),
  delivered_at      timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, endpoint_id) references webhook_endpoints (tenant_id, id) on delete cascade
);
-- An endpoint's deliveries newest first (the deliveries API; `?status=` filters this range).
create index webhook_deliveries_endpoint_idx on webhook_deliveries (tenant_id, endpoint_id, id desc);
-- The dispatcher's look-up of due deliveries over every tenant: small, pending rows only.
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';

-- The expires_at value whose passing was announced (memory.expired): an expiry is announced
-- once, and again only when the memory was given a new expiry that passed in turn. Not indexed:
-- the expiry sweep reads it beside expires_at (memories_expires_idx), and an index would make
-- the update non-HOT (see 20261129200000_lifecycle).
alter table memories add column expiry_announced_at timestamptz;

do $$
declare
  t text;
begin
  foreach t in array array['webhook_endpoints', 'webhook_deliveries'] loop
    execute format('alter table %I enable row level security', t);
    execute format('alter table %I force row level security', t);
    execute format(
      'create policy tenant_isolation on %I using (tenant_id = engram_current_tenant()) '
      'with check (tenant_id = engram_current_tenant())', t);
  end loop;
end
$$;
grant select, insert, update, delete on webhook_endpoints, webhook_deliveries to engram_app;

-- The dispatcher runs before a tenant is known: one security-definer look-up for the deliveries
-- due over every tenant (ids only), instead of a query per tenant. `p_lost_after_seconds` is how
-- long past due a delivery must be (0 in-process, where this look-up drives every retry; with a
-- queue, a delivery that long overdue lost its queue message). Database time throughout, like
-- next_attempt_at.
grant select (tenant_id, id, status, next_attempt_at) on webhook_deliveries to engram_auth;
create policy webhook_dispatch on webhook_deliveries for select to engram_auth using (true);
create function engram_webhook_deliveries_due(p_lost_after_seconds double precision, p_limit integer)
  returns table (tenant_id uuid, id uuid)
  language sql stable security definer set search_path = public, pg_temp
  as $$
    select d.tenant_id, d.id from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at <= now() - make_interval(secs => p_lost_after_seconds)
    order by d.next_attempt_at
    limit p_limit
  $$;
alter function engram_webhook_deliveries_due(double precision, integer) owner to engram_auth;
revoke all on function engram_webhook_deliveries_due(double precision, integer) from public;
grant execute on function engram_webhook_deliveries_due(double precision, integer) to engram_app;

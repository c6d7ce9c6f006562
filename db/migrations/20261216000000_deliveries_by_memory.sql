-- The webhook deliveries about one memory, found by its id (docs/webhooks.md, "Deleting").
--
-- A memory deleted through the API or MCP took its history with it, but its deliveries stayed:
-- `memory.created` and `memory.updated` carry the content, pending ones went on being retried for
-- hours and a manual retry could send them again, and done ones kept the text readable in the
-- deliveries list (a tester's find, after mem0's reports of deleted memories that lived on).
-- Deleting a memory now deletes the deliveries about it in the same transaction.
--
-- The memory's id is a column of its own, generated from the payload, with an index: under
-- row-level security a condition on `payload -> 'data' ->> 'memory_id'` cannot be an index
-- condition (the jsonb operators are not leakproof, so they run after the policy's filter), and
-- each deletion would read every delivery of the tenant, which are kept.

alter table webhook_deliveries add column if not exists memory_id text generated always as (payload -> 'data' ->> 'memory_id') stored;
create index if not exists webhook_deliveries_memory_idx on webhook_deliveries (tenant_id, memory_id);

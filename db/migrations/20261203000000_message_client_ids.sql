-- The caller's id of a message (issue 15, a newcomer's report): agents that send a conversation's
-- whole history with every call would otherwise store and score each earlier message again, and
-- the repeats would count as rehearsal. A message whose client_id its conversation has already
-- seen is skipped. Unique per conversation (tenant first, so the index is a shard's on Citus).
alter table messages add column client_id text check (client_id ~ '^[A-Za-z0-9._:-]{1,200}$');
create unique index messages_client_id_idx on messages (tenant_id, mind_id, conversation_id, client_id) where client_id is not null;

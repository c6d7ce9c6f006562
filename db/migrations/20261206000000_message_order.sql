-- A conversation's messages in their order (event time, then id: MessagesRepository `list`,
-- `lastBefore`, and `position`, which gives an episode its place in its conversation so that the
-- association graph can link consecutive episodes precedes / follows, docs/design.md §6.8). It
-- replaces the index by arrival time, which no statement read in order.
drop index if exists messages_conversation_idx;
create index messages_conversation_time_idx on messages (tenant_id, mind_id, conversation_id, occurred_at, id);

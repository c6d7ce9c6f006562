import { sql, type RawBuilder } from 'kysely';

/**
 * The memory events a tenant can subscribe a webhook endpoint to (docs/webhooks.md): the one
 * list the API's validation, the writer, the sweeps and the migration's check constraint
 * (20261201200000_webhooks) follow.
 *
 * - `memory.created`: a new memory (a keyed write, a batch item, an LLM fact);
 * - `memory.updated`: a memory's content or fields changed (an edit, an upsert of an existing
 *   key, a verification); not access bookkeeping;
 * - `memory.deleted`: deleted through the API or MCP;
 * - `memory.soft_forgotten`: the forgetting sweep found its retention below the soft threshold;
 * - `memory.evicted`: the forgetting sweep deleted it (a tombstone is kept);
 * - `memory.consolidated`: a new memory written by consolidation: an episode moved from
 *   short-term memory into long-term memory (`stage: episode`), or a semantic memory generalised
 *   from episodes (`stage: generalised`);
 * - `memory.expired`: its `expires_at` passed (found by the forgetting sweep).
 */
export const WEBHOOK_EVENT_TYPES = [
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'memory.soft_forgotten',
  'memory.evicted',
  'memory.consolidated',
  'memory.expired',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * A delivery's body (Standard Webhooks "payload structure"): `type`, `timestamp` (ISO 8601,
 * when the event happened) and `data`, which always names the memory (`mind_id`, `memory_id`,
 * `category`, `key`) and carries what the event says about it.
 */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: { mind_id: string; memory_id: string; category: string; key: string } & Record<string, unknown>;
}

/** One event of a transaction, before it is fanned out to the endpoints subscribed to its type. */
export interface WebhookEvent {
  type: WebhookEventType;
  payload: WebhookPayload;
}

/**
 * The set-based outbox step of a sweep (docs/webhooks.md "transactional outbox"): a CTE named
 * `events` that inserts one pending delivery per row of the CTE `rows` (columns `tenant_id, id,
 * mind_id, category, key`) and per enabled endpoint of the tenant subscribed to `type`, with the
 * payload `{type, timestamp: at, data}` where `data` is the memory's identity plus `extra`
 * (an SQL `jsonb` expression over `rows`' columns). Returns the deliveries' ids. Nothing is
 * inserted, and the join finds nothing at the cost of one primary-key range read, when the
 * tenant has no endpoint for the type.
 */
export function outboxCte(tenantId: string, type: WebhookEventType, at: Date, extra: RawBuilder<unknown> = sql`'{}'::jsonb`): RawBuilder<unknown> {
  return sql`events as (
    insert into webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
    select r.tenant_id, engram_uuid_v7(), e.id, ${type}::text,
           jsonb_build_object('type', ${type}::text, 'timestamp', ${at.toISOString()}::text,
             'data', jsonb_build_object('mind_id', r.mind_id, 'memory_id', r.id, 'category', r.category, 'key', r.key) || ${extra})
    from rows r
    join webhook_endpoints e on e.tenant_id = ${tenantId} and e.tenant_id = r.tenant_id and e.enabled and ${type}::text = any(e.event_types)
    returning id)`;
}

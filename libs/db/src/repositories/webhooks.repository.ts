import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { DB, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint } from '../schema';
import type { WebhookEvent, WebhookEventType } from '../webhook-events';

const E = SAMPLE.uuid;
const SAMPLE_EVENT: WebhookEvent = {
  type: 'memory.created',
  payload: { type: 'memory.created', timestamp: SAMPLE.date.toISOString(), data: { mind_id: E, memory_id: SAMPLE.uuid2, category: 'note', key: 'k' } },
};

/** What can change on an endpoint (`PATCH /v1/webhooks/:id`). */
export interface WebhookEndpointChange {
  url?: string;
  description?: string | null;
  event_types?: WebhookEventType[];
  enabled?: boolean;
  disabled_reason?: string | null;
}

/** The outcome of one delivery attempt, as recorded. */
export interface WebhookAttempt {
  status: WebhookDeliveryStatus;
  statusCode: number | null;
  error: string | null;
  /** Seconds from now (database time) until the next attempt; only for `pending`. */
  retryInSeconds?: number;
}

/**
 * Webhook endpoints and their deliveries (docs/webhooks.md). Every method takes the tenant's
 * transaction first (row-level security), but the due-delivery look-up, which runs before a
 * tenant is known (security-definer `engram_webhook_deliveries_due`, ids only). Deliveries are
 * the outbox: {@link emit} inserts them in the transaction of the change they announce.
 */
@Injectable()
export class WebhooksRepository {
  @GenerateSql({ params: [{ id: E, url: 'https://example.com/hook', description: null, event_types: ['memory.created'], secret: 'whsec_x' }] })
  createEndpoint(tx: TenantTx, endpoint: { id: string; url: string; description: string | null; event_types: WebhookEventType[]; secret: string }): Promise<WebhookEndpoint> {
    return tx.trx
      .insertInto('webhook_endpoints')
      .values({ ...endpoint, tenant_id: tx.tenantId })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  @GenerateSql({ params: [E] })
  findEndpoint(tx: TenantTx, id: string): Promise<WebhookEndpoint | undefined> {
    return tx.trx.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tx.tenantId).where('id', '=', id).executeTakeFirst();
  }

  /** Endpoints newest first (ids are UUIDv7), `limit` per page, after the id `after`. */
  @GenerateSql({ params: [{ after: E, limit: SAMPLE.limit }] })
  listEndpoints(tx: TenantTx, page: { after?: string; limit: number }): Promise<WebhookEndpoint[]> {
    let query = tx.trx.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tx.tenantId);
    if (page.after) query = query.where('id', '<', page.after);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** @returns the changed endpoint, or undefined when it is not the tenant's */
  @GenerateSql({ params: [E, { enabled: false, disabled_reason: null }] })
  updateEndpoint(tx: TenantTx, id: string, change: WebhookEndpointChange): Promise<WebhookEndpoint | undefined> {
    return tx.trx
      .updateTable('webhook_endpoints')
      .set({ ...change, updated_at: sql`now()` })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes an endpoint with its deliveries (cascade). @returns whether it existed */
  @GenerateSql({ params: [E] })
  async deleteEndpoint(tx: TenantTx, id: string): Promise<boolean> {
    const result = await tx.trx.deleteFrom('webhook_endpoints').where('tenant_id', '=', tx.tenantId).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * The event types some enabled endpoint of the tenant receives: a transaction with many writes
   * reads this once and skips {@link emit} for types nobody receives (libs/services WebhookOutbox).
   */
  @GenerateSql()
  async subscribedTypes(tx: TenantTx): Promise<Set<WebhookEventType>> {
    const { rows } = await sql<{ type: WebhookEventType }>`
      select distinct unnest(event_types) as type from webhook_endpoints where tenant_id = ${tx.tenantId} and enabled`.execute(tx.trx);
    return new Set(rows.map((r) => r.type));
  }

  /**
   * Deletes every delivery about the mind's memories, pending or done: their payloads carry the
   * memories' content, and a purge or the mind's deletion must not leave it to be sent (a retry
   * delivered a purged memory's text) nor kept (data rights). @returns how many were deleted
   */
  @GenerateSql({ params: [SAMPLE.uuid] })
  async deleteForMind(tx: TenantTx, mindId: string): Promise<number> {
    const result = await tx.trx
      .deleteFrom('webhook_deliveries')
      .where('tenant_id', '=', tx.tenantId)
      .where(sql<string>`payload -> 'data' ->> 'mind_id'`, '=', mindId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Deletes every delivery about one memory, pending or done, as {@link deleteForMind} does for a
   * mind: a deleted memory's content must neither be sent by a retry nor stay readable in the
   * deliveries list (`webhook_deliveries_memory_idx`). @returns how many were deleted
   */
  @GenerateSql({ params: [SAMPLE.uuid] })
  async deleteForMemory(tx: TenantTx, memoryId: string): Promise<number> {
    const result = await tx.trx
      .deleteFrom('webhook_deliveries')
      .where('tenant_id', '=', tx.tenantId)
      .where('memory_id', '=', memoryId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * The outbox: one pending delivery per event and enabled endpoint of the tenant subscribed to
   * its type, in one statement. @returns the deliveries' ids (to dispatch after commit)
   */
  @GenerateSql({ params: [[SAMPLE_EVENT]] })
  async emit(tx: TenantTx, events: readonly WebhookEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const { rows } = await sql<{ id: string }>`
      insert into webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload)
      select ${tx.tenantId}, engram_uuid_v7(), e.id, ev.type, ev.payload
      from unnest(${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.payload))}::jsonb[]) with ordinality as ev(type, payload, n)
      join webhook_endpoints e on e.tenant_id = ${tx.tenantId} and e.enabled and ev.type = any(e.event_types)
      order by ev.n
      returning id`.execute(tx.trx);
    return rows.map((r) => r.id);
  }

  /** A delivery of one of the tenant's endpoints. */
  @GenerateSql({ params: [E, SAMPLE.uuid2] })
  findDelivery(tx: TenantTx, endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    return tx.trx
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** An endpoint's deliveries newest first, `limit` per page after the id `after`, optionally of one status. */
  @GenerateSql({ params: [E, { after: SAMPLE.uuid2, limit: SAMPLE.limit, status: 'failed' }] })
  listDeliveries(tx: TenantTx, endpointId: string, page: { after?: string; limit: number; status?: WebhookDeliveryStatus }): Promise<WebhookDelivery[]> {
    let query = tx.trx.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tx.tenantId).where('endpoint_id', '=', endpointId);
    if (page.after) query = query.where('id', '<', page.after);
    if (page.status) query = query.where('status', '=', page.status);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /**
   * A delivery with its endpoint's URL, secret and state, for an attempt. Not locked: the
   * attempt holds no transaction while the receiver answers (two attempts of one delivery at
   * once are possible, and allowed: delivery is at least once).
   */
  @GenerateSql({ params: [E] })
  findForAttempt(tx: TenantTx, id: string): Promise<(WebhookDelivery & { url: string; secret: string; enabled: boolean }) | undefined> {
    return tx.trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', (join) => join.onRef('e.tenant_id', '=', 'd.tenant_id').onRef('e.id', '=', 'd.endpoint_id'))
      .selectAll('d')
      .select(['e.url', 'e.secret', 'e.enabled'])
      .where('d.tenant_id', '=', tx.tenantId)
      .where('d.id', '=', id)
      .executeTakeFirst();
  }

  /**
   * Records an attempt: one more attempt, its status code and error; `succeeded` stamps
   * `delivered_at`; `pending` schedules the next attempt `retryInSeconds` from now (database time).
   * Only a pending delivery is changed: a concurrent attempt that already finished it stands.
   */
  @GenerateSql({ params: [E, { status: 'pending', statusCode: 500, error: 'HTTP 500', retryInSeconds: 30 }] })
  async recordAttempt(tx: TenantTx, id: string, attempt: WebhookAttempt): Promise<void> {
    await tx.trx
      .updateTable('webhook_deliveries')
      .set({
        status: attempt.status,
        attempts: sql`attempts + 1`,
        last_status_code: attempt.statusCode,
        last_error: attempt.error,
        delivered_at: attempt.status === 'succeeded' ? sql`now()` : null,
        next_attempt_at: attempt.status === 'pending' ? sql`now() + make_interval(secs => ${attempt.retryInSeconds ?? 0}::float8)` : null,
      })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Makes a delivery pending again, due now, with a new round of attempts (`attempts` back to 0;
   * the last status code and error stay until the next attempt). @returns the delivery, or
   * undefined when it is not one of the endpoint's
   */
  @GenerateSql({ params: [E, SAMPLE.uuid2] })
  resetForRetry(tx: TenantTx, endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    return tx.trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: sql`now()`, delivered_at: null })
      .where('tenant_id', '=', tx.tenantId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Pending deliveries over every tenant due at least `lostAfterSeconds` ago (database time),
   * oldest due first, at most `limit` (security-definer look-up, ids only; no tenant is set).
   */
  @GenerateSql({ params: [60, SAMPLE.limit], withoutTenant: true })
  async due(db: Kysely<DB>, lostAfterSeconds: number, limit: number): Promise<{ tenantId: string; id: string }[]> {
    const { rows } = await sql<{ tenant_id: string; id: string }>`
      select tenant_id, id from engram_webhook_deliveries_due(${lostAfterSeconds}::float8, ${limit}::int)`.execute(db);
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  }
}

import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { TenantDb, WebhooksRepository, newId, type TenantTx, type WebhookDelivery, type WebhookDeliveryStatus, type WebhookEndpoint, type WebhookEventType } from '@engram/db';
import { AppError, WebhookDispatch, webhookUrlProblem } from '@engram/services';
import { decodeCursor, encodeCursor } from '../common/ids';
import type { UserPrincipal } from '../auth/principal';

/** Bytes of a signing secret: 256 bits (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

export function webhookView(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.event_types,
    description: e.description,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

export function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_type: d.event_type,
    payload: d.payload as unknown as Record<string, unknown>,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
    created_at: d.created_at.toISOString(),
    delivered_at: d.delivered_at?.toISOString() ?? null,
  };
}

/** A page of `{items, next_cursor}` from `limit + 1` rows, newest first. */
function page<R extends { id: string }, V>(rows: R[], limit: number, view: (r: R) => V) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(view), next_cursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}

/**
 * A tenant's webhook endpoints and their deliveries (docs/webhooks.md), for its owners and
 * admins. Another tenant's ids answer 404, like ids that do not exist. URLs are checked against
 * the SSRF rules (libs/services `webhookUrlProblem`) when registered and when changed.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly webhooks: WebhooksRepository,
    private readonly dispatch: WebhookDispatch,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Registers an endpoint; the answer holds its signing secret, shown this once. @throws AppError 400 naming `url` */
  async create(principal: UserPrincipal, input: { url: string; events: WebhookEventType[]; description?: string }) {
    await this.checkUrl(input.url);
    const secret = `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
    const endpoint = await this.tenantDb.run(principal.tenantId, (tx) =>
      this.webhooks.createEndpoint(tx, { id: newId(), url: input.url, description: input.description ?? null, event_types: input.events, secret }),
    );
    return { ...webhookView(endpoint), secret };
  }

  async list(principal: UserPrincipal, query: { limit: number; cursor?: string }) {
    const after = decodeCursor(query.cursor);
    const rows = await this.tenantDb.run(principal.tenantId, (tx) => this.webhooks.listEndpoints(tx, { after, limit: query.limit + 1 }));
    return page(rows, query.limit, webhookView);
  }

  /** @throws AppError 404 */
  async get(principal: UserPrincipal, id: string) {
    return webhookView(await this.tenantDb.run(principal.tenantId, (tx) => this.mustFind(tx, id)));
  }

  /**
   * Changes the URL, event types, description or state; enabling clears `disabled_reason`.
   * @throws AppError 400 naming `url`; 404
   */
  async update(principal: UserPrincipal, id: string, input: { url?: string; events?: WebhookEventType[]; enabled?: boolean; description?: string | null }) {
    if (input.url !== undefined) await this.checkUrl(input.url);
    const endpoint = await this.tenantDb.run(principal.tenantId, (tx) =>
      this.webhooks.updateEndpoint(tx, id, {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { event_types: input.events } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled, disabled_reason: null } : {}),
      }),
    );
    if (!endpoint) throw AppError.notFound('webhook');
    return webhookView(endpoint);
  }

  /** Deletes the endpoint and its deliveries. @throws AppError 404 */
  async delete(principal: UserPrincipal, id: string): Promise<void> {
    const deleted = await this.tenantDb.run(principal.tenantId, (tx) => this.webhooks.deleteEndpoint(tx, id));
    if (!deleted) throw AppError.notFound('webhook');
  }

  /** The endpoint's deliveries newest first, optionally of one status. @throws AppError 404 */
  async deliveries(principal: UserPrincipal, id: string, query: { limit: number; cursor?: string; status?: WebhookDeliveryStatus }) {
    const after = decodeCursor(query.cursor);
    const rows = await this.tenantDb.run(principal.tenantId, async (tx) => {
      await this.mustFind(tx, id);
      return this.webhooks.listDeliveries(tx, id, { after, limit: query.limit + 1, status: query.status });
    });
    return page(rows, query.limit, deliveryView);
  }

  /**
   * Sends a delivery again: pending, due now, with a new round of attempts; answers the delivery
   * as it stands (the attempt follows). @throws AppError 404 (the endpoint or the delivery)
   */
  async retry(principal: UserPrincipal, id: string, deliveryId: string) {
    const delivery = await this.tenantDb.run(principal.tenantId, async (tx) => {
      await this.mustFind(tx, id);
      return this.webhooks.resetForRetry(tx, id, deliveryId);
    });
    if (!delivery) throw AppError.notFound('delivery');
    await this.dispatch.retry(principal.tenantId, deliveryId);
    return deliveryView(delivery);
  }

  private async mustFind(tx: TenantTx, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.webhooks.findEndpoint(tx, id);
    if (!endpoint) throw AppError.notFound('webhook');
    return endpoint;
  }

  /** @throws AppError 400 naming `url` with the rule it breaks */
  private async checkUrl(url: string): Promise<void> {
    const problem = await webhookUrlProblem(url, this.config.WEBHOOK_ALLOW_PRIVATE_URLS);
    if (problem) throw AppError.badField('url', problem);
  }
}

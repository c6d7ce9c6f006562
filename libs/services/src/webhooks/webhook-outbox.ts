import { Injectable } from '@nestjs/common';
import { WebhooksRepository, WRITTEN_COLUMNS, type MemoryRow, type TenantTx, type WebhookEvent, type WebhookEventType } from '@engram/db';
import { WebhookDispatch } from './webhook-dispatch';

/** What consolidation a `memory.consolidated` event reports (docs/webhooks.md). */
export type ConsolidationStage = 'episode' | 'generalised';

/** The fields of a memory a change can touch that a receiver is told about (`data.changed`): those a version records. */
const ANNOUNCED_FIELDS = WRITTEN_COLUMNS;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * A memory as events about its state carry it (`memory.created`, `memory.updated`,
 * `memory.consolidated`): its identity, its seed-002 fields and content (ours: the receiver
 * would otherwise need a credential for the mind to read what changed; a memory's content is at
 * most 32 KiB), and its version.
 */
export function memoryEventData(m: MemoryRow): WebhookEvent['payload']['data'] {
  return {
    mind_id: m.mind_id,
    memory_id: m.id,
    category: m.category,
    key: m.key,
    version: m.version,
    content: m.content,
    tags: m.tags,
    priority: m.priority,
    source: m.source,
    verified: m.verified,
    confidence: m.confidence,
    memory_type: m.memory_type,
    importance_score: m.importance_score,
    expires_at: iso(m.expires_at),
    occurred_at: iso(m.occurred_at),
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
  };
}

/** An event `{type, timestamp, data}` (Standard Webhooks payload structure) about a memory. */
export function memoryEvent(type: WebhookEventType, at: Date, data: WebhookEvent['payload']['data']): WebhookEvent {
  return { type, payload: { type, timestamp: at.toISOString(), data } };
}

/** The announced fields whose value differs between two states of a memory, in a fixed order (dates compared by instant). */
export function changedFields(before: MemoryRow, after: MemoryRow): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return ANNOUNCED_FIELDS.filter((f) => !same(before[f], after[f]));
}

/**
 * The transactional outbox of the writer (docs/webhooks.md): events are inserted as pending
 * deliveries inside the caller's transaction, one per enabled endpoint subscribed to the type,
 * and dispatched once it commits (TenantTx `afterCommit`). A transaction reads which types the
 * tenant's endpoints receive once, so a batch of 500 writes of a tenant without endpoints costs
 * one primary-key range read, not 500 inserts.
 */
@Injectable()
export class WebhookOutbox {
  private readonly subscribed = new WeakMap<TenantTx, Promise<Set<WebhookEventType>>>();

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly dispatch: WebhookDispatch,
  ) {}

  /**
   * Deletes the deliveries about a memory being deleted in `tx` (WebhooksRepository
   * `deleteForMemory`): their payloads carry its content. @returns how many were deleted
   */
  forget(tx: TenantTx, memoryId: string): Promise<number> {
    return this.webhooks.deleteForMemory(tx, memoryId);
  }

  /** Inserts the events' deliveries in `tx` and dispatches them after commit. @returns the delivery ids */
  async emit(tx: TenantTx, events: readonly WebhookEvent[]): Promise<string[]> {
    let types = this.subscribed.get(tx);
    if (!types) {
      types = this.webhooks.subscribedTypes(tx);
      this.subscribed.set(tx, types);
    }
    const wanted = await types;
    const sent = events.filter((e) => wanted.has(e.type));
    if (sent.length === 0) return [];
    const ids = await this.webhooks.emit(tx, sent);
    if (ids.length > 0) tx.afterCommit?.(() => this.dispatch.dispatch(tx.tenantId, ids));
    return ids;
  }
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { TenantTx } from '../tenant-db';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { ImportanceSource, Message } from '../schema';

export interface NewMessage {
  id: string;
  conversation_id: string;
  /** The caller's id; a message whose client_id its conversation has seen is not stored again. */
  client_id?: string | null;
  role: 'user' | 'assistant' | 'system' | 'tool';
  speaker: string | null;
  content: string;
  metadata: Record<string, unknown>;
  occurred_at: Date;
  received_at: Date;
}

@Injectable()
export class MessagesRepository {
  /**
   * Stores messages exactly as received (the sensory register's log, docs/design.md §3), except
   * those whose `client_id` the conversation already holds (a re-sent history; also one sent
   * twice at once: the unique index decides). @returns the ids of the messages stored
   */
  @GenerateSql({ params: [SAMPLE.uuid, [{ id: SAMPLE.uuid2, conversation_id: 'c1', client_id: 'm-1', role: 'user', speaker: null, content: 'c', metadata: {}, occurred_at: SAMPLE.date, received_at: SAMPLE.date }]] })
  async insert(tx: TenantTx, mindId: string, messages: readonly NewMessage[]): Promise<Set<string>> {
    if (messages.length === 0) return new Set();
    const rows = await tx.trx
      .insertInto('messages')
      .values(messages.map((m) => ({ ...m, client_id: m.client_id ?? null, tenant_id: tx.tenantId, mind_id: mindId, metadata: JSON.stringify(m.metadata) })))
      .onConflict((oc) => oc.columns(['tenant_id', 'mind_id', 'conversation_id', 'client_id']).where('client_id', 'is not', null).doNothing())
      .returning('id')
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The message's place in its conversation: how many of the conversation's messages come before
   * it in event time, `min(occurred_at, arrival)` as the stream runs on (then id), 0 for the
   * first (the conversation's range of messages_conversation_time_idx). Counted once, when its
   * episode is made: a message that arrives later with an earlier time takes a place already
   * given, and the graph orders equal places by event time. An episode
   * takes its first message's place as its `temporal_position`. Null for a message not stored.
   */
  @GenerateSql({ params: [SAMPLE.uuid, 'c1', SAMPLE.uuid2] })
  async position(tx: TenantTx, mindId: string, conversationId: string, messageId: string): Promise<number | null> {
    const { rows } = await sql<{ n: number | null }>`
      select (select count(*)::int from messages m
              where m.tenant_id = ${tx.tenantId} and m.mind_id = ${mindId} and m.conversation_id = ${conversationId}
                and (least(m.occurred_at, m.received_at), m.id) < (least(x.occurred_at, x.received_at), x.id)) as n
      from messages x
      where x.tenant_id = ${tx.tenantId} and x.id = ${messageId} and x.mind_id = ${mindId} and x.conversation_id = ${conversationId}`.execute(tx.trx);
    return rows[0]?.n ?? null;
  }

  /** Records what attention made of a message. */
  @GenerateSql({ params: [SAMPLE.uuid, { stm_entry_id: null, importance: 0.5, importance_source: 'rules', at: SAMPLE.date }] })
  async markProcessed(
    tx: TenantTx,
    id: string,
    outcome: { stm_entry_id: string | null; importance: number; importance_source: ImportanceSource; at: Date },
  ): Promise<void> {
    await tx.trx
      .updateTable('messages')
      .set({ stm_entry_id: outcome.stm_entry_id, importance: outcome.importance, importance_source: outcome.importance_source, processed_at: outcome.at })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * Who said these messages (the speaker's name, else the role, as the stream names them), each
   * once, in the order of `ids`: an episode's speakers.
   */
  @GenerateSql({ params: [SAMPLE.uuid, [SAMPLE.uuid2]] })
  async speakers(tx: TenantTx, mindId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await tx.trx
      .selectFrom('messages')
      .select(['id', sql<string>`coalesce(speaker, role)`.as('speaker')])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('id', 'in', [...ids])
      .execute();
    const of = new Map(rows.map((r) => [r.id, r.speaker]));
    return [...new Set(ids.flatMap((id) => of.get(id) ?? []))];
  }

  /**
   * A page of the conversation's messages in event-time order (`occurred_at`, then id; the range
   * of messages_conversation_time_idx), after `after` when given: the raw log as received.
   */
  @GenerateSql({ params: [SAMPLE.uuid, 'c1', { occurred_at: SAMPLE.date, id: SAMPLE.uuid2 }, SAMPLE.limit] })
  page(tx: TenantTx, mindId: string, conversationId: string, after: { occurred_at: Date; id: string } | undefined, limit: number): Promise<Message[]> {
    let query = tx.trx
      .selectFrom('messages')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('conversation_id', '=', conversationId);
    if (after) query = query.where(sql<boolean>`(occurred_at, id) > (${after.occurred_at}, ${after.id}::uuid)`);
    return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
  }

  /**
   * The conversation's newest stored message at or before `before` (event time): the context the
   * first message of a post is scored in (call it before storing the post). Null when there is none.
   */
  @GenerateSql({ params: [SAMPLE.uuid, 'c1', SAMPLE.date] })
  async lastBefore(tx: TenantTx, mindId: string, conversationId: string, before: Date): Promise<Pick<Message, 'id' | 'speaker' | 'role' | 'content'> | null> {
    const last = await tx.trx
      .selectFrom('messages')
      .select(['id', 'speaker', 'role', 'content'])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('conversation_id', '=', conversationId)
      .where('occurred_at', '<=', before)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return last ?? null;
  }
}

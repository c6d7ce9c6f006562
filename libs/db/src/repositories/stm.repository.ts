import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { StmEntry } from '@engram/memory';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { ImportanceSource, StmRow } from '../schema';

/** An STM entry as stored: the domain entry plus where it lives. */
export interface StoredStmEntry extends StmEntry {
  conversation_id: string;
  importance_source: ImportanceSource;
  position: number;
}

function toEntry(row: StmRow): StoredStmEntry {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    content: row.content,
    speaker: row.speaker,
    message_ids: row.message_ids,
    importance: row.importance,
    importance_source: row.importance_source,
    emotion: row.emotion,
    association: row.association,
    utility: row.utility,
    mentions: row.mentions,
    rehearsal_count: row.rehearsal_count,
    decay_factor: row.decay_factor,
    entered_at: row.entered_at,
    last_rehearsed_at: row.last_rehearsed_at,
    position: row.position,
    chunk: row.chunk,
  };
}

@Injectable()
export class StmRepository {
  /**
   * Serialises work on one conversation's buffer: a transaction-scoped advisory lock keyed by
   * (tenant, mind, conversation), taken before reading the buffer; then a share lock on the
   * mind's row, which a purge's `FOR UPDATE` waits for and which waits for a purge. Without it a
   * post that read the buffer while a purge was deleting it saved the purged entries again once
   * the purge committed (the sleep cycle then made them memories).
   */
  @GenerateSql({ params: [SAMPLE.uuid, 'c1'] })
  async lockConversation(tx: TenantTx, mindId: string, conversationId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`${tx.tenantId}:${mindId}:${conversationId}`}, 0))`.execute(tx.trx);
    await tx.trx.selectFrom('minds').select('id').where('tenant_id', '=', tx.tenantId).where('id', '=', mindId).forKeyShare().execute();
  }

  /** The buffer of one conversation, oldest first. */
  @GenerateSql({ params: [SAMPLE.uuid, 'c1'] })
  async list(tx: TenantTx, mindId: string, conversationId: string): Promise<StoredStmEntry[]> {
    const rows = await tx.trx
      .selectFrom('stm_entries')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('conversation_id', '=', conversationId)
      .orderBy('position')
      .execute();
    return rows.map(toEntry);
  }

  /** Conversations of a mind with entries in STM (for the sleep-cycle sweep). */
  @GenerateSql({ name: 'tenant', params: [] }, { name: 'mind', params: [SAMPLE.uuid] })
  async conversationsWithEntries(tx: TenantTx, mindId?: string): Promise<{ mind_id: string; conversation_id: string }[]> {
    let q = tx.trx.selectFrom('stm_entries').select(['mind_id', 'conversation_id']).distinct().where('tenant_id', '=', tx.tenantId);
    if (mindId) q = q.where('mind_id', '=', mindId);
    return q.execute();
  }

  /** Deletes the short-term memory of every conversation of a mind (a purge). @returns how many entries. */
  @GenerateSql({ params: [SAMPLE.uuid] })
  async deleteForMind(tx: TenantTx, mindId: string): Promise<number> {
    const result = await tx.trx.deleteFrom('stm_entries').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Replaces the stored buffer with `entries` (upsert the present ones, delete the rest). */
  @GenerateSql({ name: 'empty', params: [SAMPLE.uuid, 'c1', []] }, { name: 'entries', params: [SAMPLE.uuid, 'c1', [{ id: SAMPLE.uuid2, content: 'c', speaker: null, message_ids: [], importance: 0.5, importance_source: 'rules', emotion: 0, association: 0, utility: 0, mentions: 1, rehearsal_count: 0, decay_factor: 0.85, entered_at: SAMPLE.date, last_rehearsed_at: SAMPLE.date, chunk: null }]] })
  async save(tx: TenantTx, mindId: string, conversationId: string, entries: readonly (StmEntry & { importance_source: ImportanceSource })[]): Promise<void> {
    const keep = entries.map((e) => e.id);
    let del = tx.trx
      .deleteFrom('stm_entries')
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('conversation_id', '=', conversationId);
    if (keep.length > 0) del = del.where('id', 'not in', keep);
    await del.execute();
    if (entries.length === 0) return;
    await tx.trx
      .insertInto('stm_entries')
      .values(
        entries.map((e, position) => ({
          tenant_id: tx.tenantId,
          id: e.id,
          mind_id: mindId,
          conversation_id: conversationId,
          content: e.content,
          speaker: e.speaker,
          message_ids: e.message_ids,
          importance: e.importance,
          importance_source: e.importance_source,
          emotion: e.emotion,
          association: e.association,
          utility: e.utility,
          mentions: e.mentions,
          rehearsal_count: e.rehearsal_count,
          decay_factor: e.decay_factor,
          entered_at: e.entered_at,
          last_rehearsed_at: e.last_rehearsed_at,
          position,
          chunk: e.chunk ? JSON.stringify(e.chunk) : null,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'id']).doUpdateSet((eb) => ({
          content: eb.ref('excluded.content'),
          message_ids: eb.ref('excluded.message_ids'),
          mentions: eb.ref('excluded.mentions'),
          rehearsal_count: eb.ref('excluded.rehearsal_count'),
          decay_factor: eb.ref('excluded.decay_factor'),
          last_rehearsed_at: eb.ref('excluded.last_rehearsed_at'),
          association: eb.ref('excluded.association'),
          importance: eb.ref('excluded.importance'),
          importance_source: eb.ref('excluded.importance_source'),
          emotion: eb.ref('excluded.emotion'),
          position: eb.ref('excluded.position'),
          chunk: eb.ref('excluded.chunk'),
        })),
      )
      .execute();
  }
}

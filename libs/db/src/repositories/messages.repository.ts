import { Injectable } from '@nestjs/common';
import type { TenantTx } from '../tenant-db';
import type { ImportanceSource, Message } from '../schema';

export interface NewMessage {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  speaker: string | null;
  content: string;
  metadata: Record<string, unknown>;
  occurred_at: Date;
  received_at: Date;
}

@Injectable()
export class MessagesRepository {
  /** Stores messages exactly as received (the sensory register's log, DESIGN §3). */
  async insert(tx: TenantTx, mindId: string, messages: readonly NewMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await tx.trx
      .insertInto('messages')
      .values(messages.map((m) => ({ ...m, tenant_id: tx.tenantId, mind_id: mindId, metadata: JSON.stringify(m.metadata) })))
      .execute();
  }

  /** Records what attention made of a message. */
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

  list(tx: TenantTx, mindId: string, conversationId: string, limit: number): Promise<Message[]> {
    return tx.trx
      .selectFrom('messages')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('conversation_id', '=', conversationId)
      .orderBy('occurred_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}

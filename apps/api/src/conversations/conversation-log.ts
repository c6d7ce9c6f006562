import { Injectable } from '@nestjs/common';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { MessagesRepository, TenantDb, type Message } from '@engram/db';
import { IMPORTANCE_PATHS } from '@engram/memory';
import { MindAccess, type MemoryScope } from '@engram/services';
import { decodeKeyCursor, encodeKeyCursor, isUuid } from '../common/ids';
import { isoDateTime, limitParam, once } from '../common/zod-fields';

/** `GET /conversations/:conversationId/messages`: a page of the raw log, oldest first. */
export const MessagesQuerySchema = z
  .object({
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
  })
  .strict();
export class MessagesQueryDto extends createZodDto(MessagesQuerySchema) {}
export type MessagesQuery = z.infer<typeof MessagesQuerySchema>;

/** One message as it was received, with what attention made of it. */
export const MessageViewSchema = z.object({
  /** The id a memory's `source_refs` names. */
  id: z.uuid(),
  client_id: z.string().nullable(),
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  speaker: z.string().nullable(),
  content: z.string(),
  metadata: z.object({}).catchall(z.unknown()),
  /** When it was said (the message's `occurred_at`, else its arrival). */
  occurred_at: isoDateTime,
  received_at: isoDateTime,
  /** The importance it was scored (0..1) and by what; null until processed (a message a re-send skipped was never stored). */
  importance: z.number().nullable(),
  importance_source: z.enum(IMPORTANCE_PATHS).nullable(),
});

export const MessagePageSchema = z.object({
  conversation_id: z.string(),
  items: z.array(MessageViewSchema),
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: z.string().nullable(),
});
export class MessagePageDto extends createZodDto(MessagePageSchema) {}

const MESSAGE_CURSOR = z.tuple([z.iso.datetime(), z.string().refine(isUuid)]);

function messageView(m: Message): z.infer<typeof MessageViewSchema> {
  return {
    id: m.id,
    client_id: m.client_id,
    role: m.role,
    speaker: m.speaker,
    content: m.content,
    metadata: (m.metadata ?? {}) as Record<string, unknown>,
    occurred_at: m.occurred_at.toISOString(),
    received_at: m.received_at.toISOString(),
    importance: m.importance,
    importance_source: m.importance_source,
  };
}

/**
 * The conversation's log (seed 000's sensory register): every message as received, with its
 * metadata, in event-time order. What a memory's `source_refs` point at, and the only place a
 * message's `metadata` is kept (a tester's find: it was accepted and never readable). Not an
 * access of any memory.
 */
@Injectable()
export class ConversationLog {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly messages: MessagesRepository,
  ) {}

  /**
   * A page of the messages, oldest first: `{conversation_id, items, next_cursor}`; a conversation
   * without messages has none (ids are the caller's; no such conversation is not an error).
   * @throws AppError 404 for a mind not in the tenant; 400 naming `cursor` for one this endpoint did not issue
   */
  async page(scope: MemoryScope, conversationId: string, query: MessagesQuery) {
    const cursor = decodeKeyCursor(query.cursor, MESSAGE_CURSOR);
    const after = cursor && { occurred_at: new Date(cursor[0]), id: cursor[1].toLowerCase() };
    const rows = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.messages.page(tx, scope.mindId, conversationId, after, query.limit + 1);
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      conversation_id: conversationId,
      items: page.map(messageView),
      next_cursor: rows.length > query.limit && last ? encodeKeyCursor([last.occurred_at.toISOString(), last.id]) : null,
    };
  }
}

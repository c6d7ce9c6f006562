import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError, ConversationStream } from '@engram/services';
import { AppendMessagesSchema, CONVERSATION_ID_PATTERN } from '../../conversations/conversations.dto';
import { conversationId } from '../../conversations/conversations.controller';
import { MemoryViewSchema } from '../../memory/memory.dto';
import type { MemoryScope } from '../../memory/memory-scope';
import { answer, defined, parseAs, renamed, run } from './tool-helpers';
import { DATE_TIME, NOT_BLANK, amend, arg, oneLineText, propertyOf, toolInput } from './tool-schema';

/** A message's `speaker`: `oneLine(100)` in the REST schema. */
const SPEAKER_MAX_LENGTH = 100;

/** The conversation a tool works on: the REST path's conversation id rule. */
export const conversationIdArg = arg(
  { type: 'string', minLength: 1, maxLength: 200, pattern: CONVERSATION_ID_PATTERN.source, examples: ['chat-2026-06-28'] },
  'Your name for this conversation, the same for all its messages: 1-200 letters, digits, ".", "_", ":" or "-" (not "." nor "..").',
);

/** The tool's `conversation_id` as the REST path takes it; a bad one is named by the tool's argument name. */
export function conversationArg(args: Record<string, unknown>): string {
  if (args.conversation_id === undefined) throw AppError.badField('conversation_id', 'is required');
  return renamed(() => conversationId(typeof args.conversation_id === 'string' ? args.conversation_id : ''), { conversationId: 'conversation_id' });
}

/** Advertised arguments: the REST path's conversation id rule and the REST body's messages. */
export const appendMessagesInput = toolInput(
  {
    conversation_id: conversationIdArg,
    messages: arg(
      // The message rules zod states as refinements: content not blank, speaker one line, a date-time.
      amend(propertyOf(AppendMessagesSchema, 'messages'), ['items'], { content: NOT_BLANK, speaker: oneLineText(SPEAKER_MAX_LENGTH), occurred_at: DATE_TIME }),
      'The new messages since the last call, oldest first: role (user by default, assistant, system or tool), content, and optionally occurred_at (ISO 8601), speaker, importance (0..1), metadata, client_id (your id of the message: one this conversation already holds is skipped, so sending the whole history again is safe).',
    ),
  },
  ['conversation_id', 'messages'],
);

const id = z.string().meta({ format: 'uuid' });
const key = z.string();
/** A memory a conversation made (created) or found repeated and strengthened (reinforced). */
export const rememberedSchema = z.object({ memory_id: id, key, status: z.enum(['created', 'reinforced']) });

export const appendMessagesOutput = z.object({
  conversation_id: z.string(),
  message_ids: z.array(id).describe('one per message stored, in order (a message whose client_id the conversation held is skipped)'),
  duplicates: z.number().int().describe('messages skipped: the conversation already held their client_id'),
  remembered: z
    .array(rememberedSchema)
    .describe('memories this call made from the conversation (created) or found repeated and strengthened (reinforced)'),
  facts: z
    .array(z.object({ memory_id: id, category: MemoryViewSchema.shape.category, key, status: z.enum(['created', 'updated', 'unchanged']) }))
    .describe('keyed facts picked out of the conversation and stored (only when the server has a language model configured)'),
});

/** `append_messages`: feeds messages of a conversation to the scope's short-term memory (`POST /v1/conversations/:id/messages`). */
export function registerAppendMessagesTool(server: McpServer, scope: MemoryScope, conversations: ConversationStream): void {
  server.registerTool(
    'append_messages',
    {
      title: 'Append conversation messages',
      description:
        'Sends the turns of a conversation so the server picks out by itself what is worth keeping: messages are held briefly, ' +
        'repeated or important ones become memories, and a message that repeats a known memory strengthens it. ' +
        'Call it after each exchange with the new messages (user and assistant) under one conversation_id per conversation. ' +
        'For a fact you already know is worth keeping, use remember instead.',
      inputSchema: appendMessagesInput,
      outputSchema: appendMessagesOutput,
    },
    (args) =>
      run(async () => {
        const conversation = conversationArg(args);
        const messages = Array.isArray(args.messages) ? args.messages.map((m: unknown) => (m !== null && typeof m === 'object' ? defined(m as Record<string, unknown>) : m)) : args.messages;
        const body = parseAs(AppendMessagesSchema, { messages });
        const result = await conversations.append(scope, conversation, body.messages);
        const remembered = [
          ...result.consolidated.map((c) => ({ memory_id: c.memory_id, key: c.key, status: c.status })),
          ...result.reinforced.map((r) => ({ memory_id: r.memory_id, key: r.key, status: 'reinforced' as const })),
        ];
        const facts = result.consolidated.flatMap((c) => c.facts ?? []).map((f) => ({ ...f, category: f.category as z.infer<typeof MemoryViewSchema.shape.category> }));
        const text = `stored ${result.message_ids.length} message(s) in ${result.conversation_id}${result.duplicates > 0 ? ` (${result.duplicates} already held, skipped)` : ''}; ${remembered.length} memory(ies) made or strengthened, ${facts.length} fact(s) stored`;
        return answer({ conversation_id: result.conversation_id, message_ids: result.message_ids, duplicates: result.duplicates, remembered, facts }, text);
      }),
  );
}

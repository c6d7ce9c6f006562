import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ConversationStream } from '@engram/services';
import { AppendMessagesSchema } from '../../conversations/conversations.dto';
import { conversationId } from '../../conversations/conversations.controller';
import type { MemoryScope } from '../../memory/memory-scope';
import { defined, json, parseAs, run } from './tool-helpers';

/** `append_messages`: feeds messages of a conversation to the scope's short-term memory. */
export function registerAppendMessagesTool(server: McpServer, scope: MemoryScope, conversations: ConversationStream): void {
  server.registerTool(
    'append_messages',
    {
      title: 'Append conversation messages',
      description:
        'Appends 1-500 messages to a conversation of this mind: each is stored, scored and run through short-term memory; ' +
        'entries pushed out consolidate into long-term memories. Answers {conversation_id, message_ids, attended, rehearsed, reinforced (messages that repeated a long-term memory and reinforced it), below_attention, discarded, consolidated, stm_size, stm_capacity}. ' +
        'Errors name the field, e.g. "messages[0].content: must not be empty", "conversationId: must be 1 to 200 characters ...".',
      inputSchema: z.strictObject({
        conversation_id: z.string().describe('1-200 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"; chosen by the caller'),
        messages: z
          .array(
            z.strictObject({
              role: z.string().optional().describe('user (default), assistant, system or tool'),
              speaker: z.string().optional().describe('who spoke, when there are several people'),
              content: z.string().describe('non-empty, at most 32 KiB of UTF-8'),
              occurred_at: z.string().optional().describe('ISO 8601 date-time with a zone; default now'),
              importance: z.number().optional().describe('0..1; else the scorer decides'),
              metadata: z.record(z.string(), z.unknown()).optional().describe('a JSON object, at most 16 KiB'),
            }),
          )
          .describe('1-500 messages in order'),
      }),
    },
    (args) =>
      run(async () => {
        const id = conversationId(args.conversation_id);
        const body = parseAs(AppendMessagesSchema, { messages: args.messages.map((m) => defined(m)) });
        return json(await conversations.append(scope, id, body.messages));
      }),
  );
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ConversationStream } from '@engram/services';
import type { MemoryScope } from '../../memory/memory-scope';
import { conversationArg, conversationIdArg, rememberedSchema } from './append-messages.tool';
import { answer, run } from './tool-helpers';
import { toolInput } from './tool-schema';

export const endConversationInput = toolInput({ conversation_id: conversationIdArg }, ['conversation_id']);

export const endConversationOutput = z.object({
  conversation_id: z.string(),
  remembered: z.array(rememberedSchema).describe('memories made (created) or strengthened (reinforced) from what the conversation still held'),
  discarded: z.number().int().describe('held messages let go: not important, emotional or repeated enough to keep'),
});

/**
 * `end_conversation`: the conversation is over (`POST /v1/conversations/:id/end`): what its
 * short-term memory still holds is decided now, as the time rules would after 30 quiet minutes.
 */
export function registerEndConversationTool(server: McpServer, scope: MemoryScope, conversations: ConversationStream): void {
  server.registerTool(
    'end_conversation',
    {
      title: 'End a conversation',
      description:
        'Says that a conversation sent with append_messages is over, so the messages it still holds are decided now rather than half an hour later: ' +
        'what mattered becomes memories, the rest is let go. Call it once when the conversation ends; calling it again does nothing.',
      inputSchema: endConversationInput,
      outputSchema: endConversationOutput,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      run(async () => {
        const conversation = conversationArg(args);
        const result = await conversations.end(scope, conversation);
        const remembered = result.consolidated.map((c) => ({ memory_id: c.memory_id, key: c.key, status: c.status }));
        return answer(
          { conversation_id: conversation, remembered, discarded: result.discarded },
          `ended ${conversation}: ${remembered.length} memory(ies) made or strengthened, ${result.discarded} message(s) let go`,
        );
      }),
  );
}

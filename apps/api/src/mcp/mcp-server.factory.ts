import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ConversationStream } from '@engram/services';
import { MemoriesRepository, TenantDb } from '@engram/db';
import { MemoryReadService } from '../memory/memory-read.service';
import type { MemoryScope } from '../memory/memory-scope';
import { MemoryWriteService } from '../memory/memory-write.service';
import { MindAccess } from '@engram/services';
import { registerAppendMessagesTool } from './tools/append-messages.tool';
import { registerEndConversationTool } from './tools/end-conversation.tool';
import { registerForgetTool } from './tools/forget.tool';
import { registerGetTool } from './tools/get.tool';
import { registerHistoryTool } from './tools/history.tool';
import { registerListExpiringTool } from './tools/list-expiring.tool';
import { registerRecallResource } from './tools/recall.resource';
import { registerRecallTool } from './tools/recall.tool';
import { registerRelatedMemoriesTool } from './tools/related-memories.tool';
import { registerRememberTool } from './tools/remember.tool';
import { registerSearchTool } from './tools/search.tool';
import { registerUpdateTool } from './tools/update.tool';

export { RECALL_RESOURCE_URI } from './tools/recall.resource';

/**
 * What the server tells a model at `initialize` (clients put it in the system prompt): when to
 * use its memory, in the words of the tools' own descriptions.
 */
export const MCP_INSTRUCTIONS =
  'Your long-term memory of the user and your work with them; it lasts across conversations. ' +
  'At the start of a conversation or task, and before answering anything that may depend on the user, call recall with the task or question as q. ' +
  'When the user states a lasting fact, a preference or a decision, corrects you, or asks you to remember something, call remember at once, ' +
  'with a stable lower_snake_case key such as user_employer (the same key later replaces the old fact). ' +
  'Use search to look up particular memories, get and history to inspect one, related_memories to follow its links to others, update to change one, forget to delete one, ' +
  'list_expiring for what is about to lapse, and append_messages to let the server learn from a conversation by itself. ' +
  'The resource memory://recall holds the same text as recall without arguments.';

/**
 * Builds the MCP server of one Mind Key's request: tools and the recall resource bound to its
 * memory scope. Every tool calls the same services as the REST API (so validation, tenancy by
 * RLS through TenantDb, lifecycle rules and error messages are the API's); a failure comes back
 * as a tool error (`isError: true`) whose text is the API's message, e.g.
 * `key: must be snake_case: ...` or `memory not found`. Each tool advertises an input schema
 * built from the REST schemas' own fields (enums, bounds, patterns) and an output schema; its
 * answer is `structuredContent` plus a short text. One file per tool under `tools/`.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly writes: MemoryWriteService,
    private readonly reads: MemoryReadService,
    private readonly conversations: ConversationStream,
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
  ) {}

  create(scope: MemoryScope): McpServer {
    const server = new McpServer({ name: 'engram', version: '1.0.0' }, { instructions: MCP_INSTRUCTIONS });
    const refs = { tenantDb: this.tenantDb, minds: this.minds, memories: this.memories };
    // Registration order is the order of tools/list: the everyday tools first.
    registerRecallTool(server, scope, this.reads);
    registerRememberTool(server, scope, this.writes);
    registerSearchTool(server, scope, this.reads);
    registerGetTool(server, scope, this.reads, refs);
    registerUpdateTool(server, scope, this.writes, refs);
    registerHistoryTool(server, scope, this.reads, refs);
    registerRelatedMemoriesTool(server, scope, this.reads, refs);
    registerForgetTool(server, scope, { writes: this.writes, ...refs });
    registerListExpiringTool(server, scope, this.reads);
    registerAppendMessagesTool(server, scope, this.conversations);
    registerEndConversationTool(server, scope, this.conversations);
    registerRecallResource(server, scope, this.reads);
    return server;
  }
}

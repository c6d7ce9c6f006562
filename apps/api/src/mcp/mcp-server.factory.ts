import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ConversationStream } from '@engram/services';
import { MemoriesRepository, TenantDb } from '@engram/db';
import { MemoryReadService } from '../memory/memory-read.service';
import type { MemoryScope } from '../memory/memory-scope';
import { MemoryWriteService } from '../memory/memory-write.service';
import { MindAccess } from '@engram/services';
import { registerAppendMessagesTool } from './tools/append-messages.tool';
import { registerForgetTool } from './tools/forget.tool';
import { registerListExpiringTool } from './tools/list-expiring.tool';
import { registerRecallResource } from './tools/recall.resource';
import { registerRecallTool } from './tools/recall.tool';
import { registerRememberTool } from './tools/remember.tool';
import { registerSearchTool } from './tools/search.tool';

export { RECALL_RESOURCE_URI } from './tools/recall.resource';

/**
 * Builds the MCP server of one Mind Key's request: tools and the recall resource bound to its
 * memory scope. Every tool calls the same services as the REST API (so validation, tenancy by
 * RLS through TenantDb, lifecycle rules and error messages are the API's); a failure comes back
 * as a tool error (`isError: true`) whose text is the API's message, e.g.
 * `key: must be snake_case: ...` or `memory not found`. One file per tool under `tools/`.
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
    const server = new McpServer(
      { name: 'engram', version: '1.0.0' },
      {
        instructions:
          'Long-term memory of this mind. `recall` (or the resource memory://recall) gives what you know as text for your context; ' +
          '`remember` stores or overwrites a memory by (category, key); `search` finds memories; `forget` deletes one; ' +
          '`list_expiring` shows what expires soon; `append_messages` feeds a conversation to short-term memory.',
      },
    );
    // Registration order is the order of tools/list.
    registerRememberTool(server, scope, this.writes);
    registerRecallTool(server, scope, this.reads);
    registerSearchTool(server, scope, this.reads);
    registerForgetTool(server, scope, { writes: this.writes, tenantDb: this.tenantDb, minds: this.minds, memories: this.memories });
    registerListExpiringTool(server, scope, this.reads);
    registerAppendMessagesTool(server, scope, this.conversations);
    registerRecallResource(server, scope, this.reads);
    return server;
  }
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { RecallQuerySchema } from '../../memory/memory.dto';

/** The URI of the recall resource: the plain-text recall of the key's mind. */
export const RECALL_RESOURCE_URI = 'memory://recall';

/** The `memory://recall` resource: what the recall tool gives without arguments. */
export function registerRecallResource(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerResource(
    'recall',
    RECALL_RESOURCE_URI,
    {
      title: 'Recall',
      description: 'What you remember about the user, as text ready to read (critical memories first, then the newest; at most 100): the recall tool\'s text without arguments.',
      mimeType: 'text/plain',
    },
    async (uri) => {
      const recall = await reads.recall(scope, RecallQuerySchema.parse({}));
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: recall.text }] };
    },
  );
}

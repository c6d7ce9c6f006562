import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MEMORY_TYPES } from '@engram/memory';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { SearchQuerySchema } from '../../memory/memory.dto';
import { CATEGORY_TEXT, PRIORITY_TEXT, asParam, compact, defined, json, parseAs, run } from './tool-helpers';

/** `search`: hybrid search in the scope's mind, with the REST API's filters. */
export function registerSearchTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'search',
    {
      title: 'Search',
      description:
        'Hybrid search (full text and meaning, weighted by retention, importance and priority); expired memories left out. ' +
        'Answers {items: [{id, category, key, content, tags, priority, verified, score, expires_at, updated_at}]}, best first. ' +
        'Errors name the field, e.g. "q: must not be empty", "limit: must be a whole number from 1 to 100".',
      inputSchema: z.strictObject({
        q: z.string().describe('what to look for, 1-1000 characters'),
        mode: z.enum(['any', 'all', 'vector']).optional().describe('any: any word (default); all: web-search syntax ("phrase", -word, or); vector: by meaning only'),
        limit: z.number().optional().describe('1-100, default 10'),
        category: z.string().optional().describe(CATEGORY_TEXT),
        tags: z.array(z.string()).optional().describe('all must match'),
        priority: z.string().optional().describe(PRIORITY_TEXT),
        memory_type: z.string().optional().describe(`one of ${MEMORY_TYPES.join(', ')}`),
        from: z.string().optional().describe('occurred_at at or after this ISO 8601 instant'),
        to: z.string().optional().describe('occurred_at before this ISO 8601 instant'),
        verified: z.boolean().optional(),
      }),
    },
    (args) =>
      run(async () => {
        const query = parseAs(
          SearchQuerySchema,
          defined({ ...args, tags: undefined, tag: args.tags, limit: asParam(args.limit), verified: asParam(args.verified) }),
          { tag: 'tags' },
        );
        const found = await reads.search(scope, query);
        return json({ items: found.items.map(compact) });
      }),
  );
}

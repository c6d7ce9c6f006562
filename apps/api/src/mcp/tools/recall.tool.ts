import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { RecallQuerySchema } from '../../memory/memory.dto';
import { asParam, defined, parseAs, run, text } from './tool-helpers';

/** `recall`: the scope's mind as plain text for the context, optionally packed for a question or a token budget. */
export function registerRecallTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description:
        'The mind\'s memories as plain text for the context (seed 002 layout): critical first, then newest, or with `q` the most relevant to the question; ' +
        'expired and forgotten ones left out. `max_tokens` (20-200000, o200k_base) packs as many whole entries as fit. ' +
        'Errors: "max_tokens: must be a whole number from 20 to 200000", "max_tokens: must be at least N, the size of this mind\'s recall header".',
      inputSchema: z.strictObject({
        q: z.string().optional().describe('a question: recall packs the memories most relevant to it (critical ones first)'),
        max_tokens: z.number().optional().describe('a token budget for the whole text, 20-200000'),
        limit: z.number().optional().describe('without max_tokens: how many entries at most (1-1000, default 100)'),
      }),
      annotations: { readOnlyHint: false },
    },
    (args) =>
      run(async () => {
        const query = parseAs(RecallQuerySchema, defined({ q: args.q, max_tokens: asParam(args.max_tokens), limit: asParam(args.limit) }));
        return text((await reads.recall(scope, query)).text);
      }),
  );
}

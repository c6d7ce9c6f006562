import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '@engram/services';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { ExpiringQuerySchema } from '../../memory/memory.dto';
import { asParam, compact, defined, json, parseAs, run } from './tool-helpers';

/** `list_expiring`: the scope's memories that expire within a window, soonest first. */
export function registerListExpiringTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'list_expiring',
    {
      title: 'List expiring memories',
      description:
        'Memories that expire within the window, soonest first (default 7 days). Answers {items: [{id, category, key, content, tags, priority, verified, expires_at, updated_at}]}. ' +
        'Errors: "within_days: must be a positive whole number ...".',
      inputSchema: z.strictObject({
        within_days: z.number().optional().describe('window in days, a whole number (default 7)'),
        within: z.string().optional().describe('instead of within_days, the REST form: 30m, 12h, 7d or 2w'),
        limit: z.number().optional().describe('1-500, default 100'),
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        if (args.within !== undefined && args.within_days !== undefined) throw AppError.badField('within', 'give within or within_days, not both');
        const within = args.within_days === undefined ? args.within : `${args.within_days}d`;
        const query = parseAs(ExpiringQuerySchema, defined({ within, limit: asParam(args.limit) }), args.within_days === undefined ? {} : { within: 'within_days' });
        const found = await reads.expiring(scope, query);
        return json({ items: found.items.map(compact) });
      }),
  );
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '@engram/services';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { ExpiringQuerySchema } from '../../memory/memory.dto';
import { MemoryOut, handle, memoryOut } from './memory-output';
import { answer, asParam, defined, parseAs, run } from './tool-helpers';
import { arg, propertyOf, toolInput } from './tool-schema';

const within = propertyOf(ExpiringQuerySchema, 'within');

/** Advertised arguments: a window in whole days, or the REST form (`12h`), and the REST limit. */
export const listExpiringInput = toolInput({
  // The REST window allows at most 6 digits of its unit.
  within_days: arg({ type: 'integer', minimum: 1, maximum: 999_999 }, 'The window in days from now (default 7).'),
  within: arg({ ...within, examples: ['12h', '7d', '2w'] }, 'Instead of within_days: a window like 30m, 12h, 7d or 2w.'),
  limit: arg(propertyOf(ExpiringQuerySchema, 'limit'), 'How many memories at most.'),
});

export const listExpiringOutput = z.object({ items: z.array(MemoryOut).describe('soonest expiry first') });

/** `list_expiring`: the scope's memories that expire within a window, soonest first. */
export function registerListExpiringTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'list_expiring',
    {
      title: 'List expiring memories',
      description:
        'Memories whose expiry (expires_at) falls within the next days, soonest first. Use it when the user asks what is coming up or about to lapse, ' +
        'or to review time-limited memories: extend one that is still true with update (a later expires_at, or null for never) and let the rest expire.',
      inputSchema: listExpiringInput,
      outputSchema: listExpiringOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        if (args.within !== undefined && args.within_days !== undefined) throw AppError.badField('within', 'give within or within_days, not both');
        const window = args.within_days === undefined ? args.within : typeof args.within_days === 'number' ? `${args.within_days}d` : args.within_days;
        const query = parseAs(ExpiringQuerySchema, defined({ within: window, limit: asParam(args.limit) }), args.within_days === undefined ? {} : { within: 'within_days' });
        const items = (await reads.expiring(scope, query)).items.map(memoryOut);
        const text = items.length === 0 ? 'nothing expires within the window' : items.map((m) => `${m.expires_at} ${handle(m)}: ${m.content}`).join('\n');
        return answer({ items }, text);
      }),
  );
}

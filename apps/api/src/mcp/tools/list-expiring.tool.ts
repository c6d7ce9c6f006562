import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError } from '@engram/services';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { ExpiringQuerySchema } from '../../memory/memory.dto';
import { MemoryOut, handle, memoryOut } from './memory-output';
import { answer, asParam, defined, parseAs, run } from './tool-helpers';
import { arg, propertyOf, toolInput } from './tool-schema';

// No `default` on either window: a client that fills in schema defaults would otherwise send
// both, which is refused. Given neither, the window is the REST default (7 days).
const { default: _restDefault, ...within } = propertyOf(ExpiringQuerySchema, 'within');

/** The largest `within_days`: the REST window allows at most 6 digits of its unit. */
const MAX_DAYS = 999_999;

/** Advertised arguments: a window in whole days, or the REST form (`12h`), and the REST limit. */
export const listExpiringInput = toolInput({
  within_days: arg({ type: 'integer', minimum: 1, maximum: MAX_DAYS }, 'The window in days from now. Give within_days or within, not both; neither: 7 days.'),
  within: arg({ ...within, minLength: 1, examples: ['12h', '7d', '2w'] }, 'Instead of within_days: a window like 30m, 12h, 7d or 2w.'),
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
        const days = args.within_days;
        if (days !== undefined && !(Number.isInteger(days) && (days as number) >= 1 && (days as number) <= MAX_DAYS)) {
          throw AppError.badField('within_days', `must be a positive whole number of days, at most ${MAX_DAYS}`);
        }
        const window = days === undefined ? args.within : `${days as number}d`;
        const query = parseAs(ExpiringQuerySchema, defined({ within: window, limit: asParam(args.limit) }));
        const items = (await reads.expiring(scope, query)).items.map(memoryOut);
        const text = items.length === 0 ? 'nothing expires within the window' : items.map((m) => `${m.expires_at} ${handle(m)}: ${m.content}`).join('\n');
        return answer({ items }, text);
      }),
  );
}

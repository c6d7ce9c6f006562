import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryField } from '../../memory/memory-fields';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { SearchQuerySchema } from '../../memory/memory.dto';
import { CATEGORY_GUIDE, MEMORY_TYPE_GUIDE, PRIORITY_GUIDE } from './guidance';
import { HitOut, dated, handle, readMemoryOut } from './memory-output';
import { answer, asParam, defined, parseAs, run } from './tool-helpers';
import { DATE_TIME, QUERY_TEXT, TAG_JSON, arg, jsonOf, propertyOf, unit, toolInput } from './tool-schema';

const property = (name: string) => propertyOf(SearchQuerySchema, name);
const instant = (name: string) => ({ ...property(name), ...DATE_TIME });

/** Advertised arguments, from the REST search query's fields (the REST `tag` filter is `tags` here: a list). */
export const searchInput = toolInput(
  {
    q: arg({ ...property('q'), ...QUERY_TEXT, examples: ['where does the user work'] }, 'What to look for: words or a question.'),
    mode: arg(
      property('mode'),
      'any (default): memories with any of the words or a similar meaning, best first; all: every word must appear (supports "exact phrase", -excluded and or); vector: by meaning only, whatever the wording.',
    ),
    limit: arg(property('limit'), 'How many hits at most.'),
    category: arg(property('category'), `Only this category. ${CATEGORY_GUIDE}`),
    tags: arg({ ...jsonOf(memoryField.tags), items: TAG_JSON }, 'Only memories with all of these tags (case-insensitive).'),
    priority: arg(property('priority'), `Only this priority. ${PRIORITY_GUIDE}`),
    memory_type: arg(property('memory_type'), `Only this kind. ${MEMORY_TYPE_GUIDE}`),
    from: arg(instant('from'), 'Only memories of events at or after this ISO 8601 date-time (with a time zone).'),
    to: arg(instant('to'), 'Only memories of events before this ISO 8601 date-time (with a time zone).'),
    verified: arg(property('verified'), 'true: only memories a person confirmed; false: only unconfirmed ones.'),
  },
  ['q'],
);

export const searchOutput = z.object({ items: z.array(HitOut).describe('best first') });

/** `search`: hybrid search in the scope's mind, with the REST API's filters; relevance relative to the best hit. */
export function registerSearchTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'search',
    {
      title: 'Search memories',
      description:
        'Finds particular memories by words or meaning, with optional filters, best first. Use it to look something up that recall did not show, ' +
        'or to find the memory to update or forget. Each hit has its id, category and key, a relevance (1 for the best hit, lower for weaker ones) ' +
        'and its retention (how firmly it is held, 0..1). Expired memories are left out. Each hit counts as a use of the memory and strengthens it.',
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: false },
    },
    (args) =>
      run(async () => {
        const query = parseAs(
          SearchQuerySchema,
          defined({ ...args, tags: undefined, tag: args.tags, limit: asParam(args.limit), verified: asParam(args.verified) }),
          { tag: 'tags' },
        );
        const found = await reads.search(scope, query);
        // The fused score has no fixed scale (it depends on the mind and the query): relative to
        // the best hit it reads as 0..1.
        const top = Math.max(0, ...found.items.map((h) => h.score));
        const items = found.items.map((h) => ({ ...readMemoryOut(h), relevance: top > 0 ? unit(h.score / top) : 0 }));
        const text = items.length === 0 ? 'no memories found' : items.map((m, i) => `${i + 1}. ${handle(m)} (relevance ${m.relevance.toFixed(2)}${dated(m)}): ${m.content}`).join('\n');
        return answer({ items }, text);
      }),
  );
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { RecallQuerySchema } from '../../memory/memory.dto';
import { answer, asParam, defined, parseAs, run } from './tool-helpers';
import { QUERY_TEXT, arg, propertyOf, toolInput } from './tool-schema';

/** Advertised arguments, with the REST recall query's bounds. */
export const recallInput = toolInput({
  q: arg(
    { ...propertyOf(RecallQuerySchema, 'q'), ...QUERY_TEXT },
    'The task or question at hand, in a few words (e.g. "plan the trip to Lisbon"): the memories most relevant to it come first, after the critical ones. Leave it out for an overview, newest first.',
  ),
  max_tokens: arg(propertyOf(RecallQuerySchema, 'max_tokens'), 'The most tokens the text may take, e.g. 2000: as many whole memories as fit are listed. A budget below the size of the header is refused.'),
  limit: arg(propertyOf(RecallQuerySchema, 'limit'), 'How many memories at most (default 100; with max_tokens, as many as fit up to this many).'),
});

export const recallOutput = z.object({
  text: z.string().describe('what you know, as text to read: a header with the counts, then one entry per memory (number, category, priority, verified or not, key, content, tags)'),
  tokens: z.number().int().min(0).describe('how many tokens the text takes (as GPT-4o-class models count them)'),
  entries: z.number().int().min(0).describe('how many memories the text lists'),
});

/** `recall`: the scope's mind as text for the model's context, optionally for a question or within a token budget. */
export function registerRecallTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService): void {
  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description:
        'What you remember about the user and your work together, as text ready to read. Call it at the start of a conversation or task, ' +
        'and before answering anything that may depend on the user (their details, preferences, projects, earlier decisions), with the task or question as q. ' +
        'Critical memories always come first; expired and forgotten ones are left out. The text names each memory by category and key, which get, update, history and forget take.',
      inputSchema: recallInput,
      outputSchema: recallOutput,
      // Not read-only: every memory shown counts as used and is strengthened.
      annotations: { readOnlyHint: false, idempotentHint: false },
    },
    (args) =>
      run(async () => {
        const query = parseAs(RecallQuerySchema, defined({ q: args.q, max_tokens: asParam(args.max_tokens), limit: asParam(args.limit) }));
        const recall = await reads.recall(scope, query);
        return answer(recall, recall.text);
      }),
  );
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryScope } from '../../memory/memory-scope';
import type { MemoryWriteService } from '../../memory/memory-write.service';
import { UpsertMemorySchema } from '../../memory/memory.dto';
import { CATEGORY_TEXT, PRIORITY_TEXT, compact, defined, json, parseAs, run } from './tool-helpers';

/** `remember`: stores or overwrites a memory of the scope's mind by (category, key). */
export function registerRememberTool(server: McpServer, scope: MemoryScope, writes: MemoryWriteService): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Stores a memory, upserting by (category, key): the same key overwrites the content (the old version stays in history), never a duplicate. ' +
        'Answers {status: created|updated|unchanged, memory: {id, category, key, content, tags, priority, verified, expires_at, updated_at}}. ' +
        'Errors name the field and rule, e.g. "key: must be snake_case: ...", "content: must not be empty".',
      inputSchema: z.strictObject({
        category: z.string().describe(CATEGORY_TEXT),
        key: z.string().describe('snake_case, at most 128 characters; unique per category'),
        content: z.string().describe('the memory itself: non-empty, at most 32 KiB of UTF-8'),
        tags: z.array(z.string()).optional().describe('at most 20 tags of at most 64 characters, no commas; stored lower-case'),
        priority: z.string().optional().describe(`${PRIORITY_TEXT}; default normal`),
        importance: z.number().optional().describe('0..1; when absent the scorer decides'),
        expires_at: z.string().nullable().optional().describe('ISO 8601 date-time with a zone; null clears an expiry'),
      }),
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      run(async () => {
        const input = parseAs(UpsertMemorySchema, defined(args));
        const { memory, status } = await writes.upsert(scope, input);
        return json({ status, memory: compact(memory) });
      }),
  );
}

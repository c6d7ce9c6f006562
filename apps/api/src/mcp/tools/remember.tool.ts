import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryField } from '../../memory/memory-fields';
import type { MemoryScope } from '../../memory/memory-scope';
import type { MemoryWriteService } from '../../memory/memory-write.service';
import { UpsertMemorySchema, WriteStatusSchema } from '../../memory/memory.dto';
import { CATEGORY_GUIDE, EXPIRES_GUIDE, IMPORTANCE_GUIDE, KEY_GUIDE, OCCURRED_GUIDE, PRIORITY_GUIDE } from './guidance';
import { MemoryOut, handle, memoryOut } from './memory-output';
import { KEY_JSON } from './memory-ref';
import { answer, defined, parseAs, run } from './tool-helpers';
import { DATE_TIME, NOT_BLANK, TAG_JSON, arg, jsonOf, propertyOf, toolInput } from './tool-schema';

/** Advertised arguments, from the REST upsert schema's fields (enums, bounds, pattern). */
export const rememberInput = toolInput(
  {
    category: arg(jsonOf(memoryField.category), CATEGORY_GUIDE),
    key: arg(KEY_JSON, KEY_GUIDE),
    content: arg(
      { ...jsonOf(memoryField.content), ...NOT_BLANK, examples: ['The user works at Globex as a data engineer since March 2024.'] },
      'The memory itself: one self-contained statement that still makes sense later, without this conversation (name the subject; write "the user", not "I" or "you"). At most 32 KiB.',
    ),
    tags: arg(
      { ...jsonOf(memoryField.tags), items: TAG_JSON },
      'Optional short labels for finding it again (people, products, topics), e.g. ["globex", "career"]; no commas; stored lower-case.',
    ),
    priority: arg(propertyOf(UpsertMemorySchema, 'priority'), `Default normal. ${PRIORITY_GUIDE}`),
    importance: arg(propertyOf(UpsertMemorySchema, 'importance'), IMPORTANCE_GUIDE),
    expires_at: arg({ ...propertyOf(UpsertMemorySchema, 'expires_at'), ...DATE_TIME }, EXPIRES_GUIDE),
    occurred_at: arg({ ...propertyOf(UpsertMemorySchema, 'occurred_at'), ...DATE_TIME }, OCCURRED_GUIDE),
  },
  ['category', 'key', 'content'],
);

export const rememberOutput = z.object({
  status: WriteStatusSchema.describe('created: a new memory; updated: the key existed and its content or fields changed (the old version is in history); unchanged: it was already stored like this'),
  memory: MemoryOut,
});

/** `remember`: stores or replaces a memory of the scope's mind by (category, key). */
export function registerRememberTool(server: McpServer, scope: MemoryScope, writes: MemoryWriteService): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Saves something worth knowing in later conversations. Call it as soon as the user states a lasting fact about themselves or their work, ' +
        'a preference, a decision, a correction, or asks you to remember something; also for a lesson learnt (category mistake or skill). ' +
        'One memory per fact. The same category and key replace the earlier memory instead of adding a second one, so a changed fact keeps its key. ' +
        'Do not store secrets (passwords, tokens) or passing small talk.',
      inputSchema: rememberInput,
      outputSchema: rememberOutput,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      run(async () => {
        const input = parseAs(UpsertMemorySchema, defined(args));
        const { memory, status } = await writes.upsert(scope, input);
        const out = memoryOut(memory);
        return answer({ status, memory: out }, `${status} ${handle(out)} (version ${out.version})`);
      }),
  );
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryScope } from '../../memory/memory-scope';
import type { MemoryWriteService } from '../../memory/memory-write.service';
import { UpdateMemorySchema } from '../../memory/memory.dto';
import { EXPIRES_GUIDE, IMPORTANCE_GUIDE, OCCURRED_GUIDE, PRIORITY_GUIDE } from './guidance';
import { MemoryOut, line, memoryOut } from './memory-output';
import { MEMORY_REF_TEXT, memoryIdOf, memoryRefArgs, type MemoryRefDeps } from './memory-ref';
import { answer, defined, parseAs, run } from './tool-helpers';
import { DATE_TIME, NOT_BLANK, TAG_JSON, arg, propertyOf, toolInput } from './tool-schema';

const property = (name: string) => propertyOf(UpdateMemorySchema, name);

/** Advertised arguments: the memory, and the REST update's fields a model changes. */
export const updateInput = toolInput({
  ...memoryRefArgs,
  content: arg({ ...property('content'), ...NOT_BLANK }, 'The new content, replacing the old (kept in history): one self-contained statement.'),
  tags: arg({ ...property('tags'), items: TAG_JSON }, 'The new tags, replacing the whole list ([] removes them).'),
  priority: arg(property('priority'), PRIORITY_GUIDE),
  importance: arg(property('importance'), IMPORTANCE_GUIDE),
  expires_at: arg({ ...property('expires_at'), ...DATE_TIME }, EXPIRES_GUIDE),
  occurred_at: arg({ ...property('occurred_at'), ...DATE_TIME }, OCCURRED_GUIDE),
});

export const updateOutput = z.object({
  status: z.enum(['updated', 'unchanged']).describe('updated: a new version (the old one is in history); unchanged: nothing differed'),
  memory: MemoryOut.describe('the memory after the change (its version is unchanged when nothing differed)'),
});

/** `update`: changes fields of one memory by id or (category, key), as `PUT /v1/memory/:id`. */
export function registerUpdateTool(server: McpServer, scope: MemoryScope, writes: MemoryWriteService, deps: MemoryRefDeps): void {
  server.registerTool(
    'update',
    {
      title: 'Update a memory',
      description:
        'Changes one existing memory: only the fields you give (content, tags, priority, importance, expires_at, occurred_at), at least one; the others stay. ' +
        'Its category and key stay too (to move it, remember it under the new key and forget the old one). Each change makes a new version; the old one stays in history. ' +
        'Content you write counts as written by an agent and is unverified until a person confirms it. ' +
        `${MEMORY_REF_TEXT} Errors: "memory not found" when there is no such memory (remember creates one).`,
      inputSchema: updateInput,
      outputSchema: updateOutput,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      run(async () => {
        const { id: _id, category: _category, key: _key, ...change } = args;
        // The change is checked first: it needs no read, and a bad field is the same error for any memory.
        const input = parseAs(UpdateMemorySchema, defined(change));
        const id = await memoryIdOf(deps, scope, args);
        const { memory: view, status } = await writes.update(scope, id, input);
        const memory = memoryOut(view);
        return answer({ status, memory }, `${status} ${line(memory)}`);
      }),
  );
}

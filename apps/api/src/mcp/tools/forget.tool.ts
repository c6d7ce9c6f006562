import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryScope } from '../../memory/memory-scope';
import type { MemoryWriteService } from '../../memory/memory-write.service';
import { MEMORY_REF_TEXT, memoryIdOf, memoryRefArgs, type MemoryRefDeps } from './memory-ref';
import { answer, run } from './tool-helpers';
import { toolInput } from './tool-schema';

/** What `forget` needs: the writer to delete, and the reads that find a memory by (category, key). */
export interface ForgetToolDeps extends MemoryRefDeps {
  writes: MemoryWriteService;
}

export const forgetInput = toolInput(memoryRefArgs);
export const forgetOutput = z.object({ deleted: z.string().meta({ format: 'uuid' }).describe('the id of the memory deleted') });

/** `forget`: deletes a memory of the scope's mind, named by id or by (category, key). */
export function registerForgetTool(server: McpServer, scope: MemoryScope, deps: ForgetToolDeps): void {
  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        'Deletes one memory for good, with its history. Use it when the user asks you to forget something, or a memory is wrong and there is nothing true to replace it with ' +
        '(when a fact changed, remember it under the same key instead). ' +
        `${MEMORY_REF_TEXT} Errors: "memory not found" when there is no such memory.`,
      inputSchema: forgetInput,
      outputSchema: forgetOutput,
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      run(async () => {
        const id = await memoryIdOf(deps, scope, args);
        await deps.writes.delete(scope, id);
        return answer({ deleted: id }, `deleted memory ${id}`);
      }),
  );
}

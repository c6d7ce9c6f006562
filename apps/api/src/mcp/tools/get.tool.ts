import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { ReadMemoryOut, line, readMemoryOut } from './memory-output';
import { MEMORY_REF_TEXT, memoryIdOf, memoryRefArgs, type MemoryRefDeps } from './memory-ref';
import { answer, run } from './tool-helpers';
import { toolInput } from './tool-schema';

export const getInput = toolInput(memoryRefArgs);
export const getOutput = z.object({ memory: ReadMemoryOut });

/** `get`: one memory of the scope's mind by id or (category, key), as `GET /v1/memory/:id` reads it. */
export function registerGetTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService, deps: MemoryRefDeps): void {
  server.registerTool(
    'get',
    {
      title: 'Get a memory',
      description:
        'Reads one memory in full: its content, tags, priority, importance, confidence, whether a person verified it, its version and expiry. ' +
        `Use it to check a memory before changing it. ${MEMORY_REF_TEXT} ` +
        'Reading it counts as a use and strengthens it (retention). Errors: "memory not found" when there is no such memory.',
      inputSchema: getInput,
      outputSchema: getOutput,
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    (args) =>
      run(async () => {
        const id = await memoryIdOf(deps, scope, args);
        const memory = readMemoryOut(await reads.get(scope, id));
        return answer({ memory }, line(memory));
      }),
  );
}

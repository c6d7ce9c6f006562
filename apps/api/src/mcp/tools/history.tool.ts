import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { VersionOut } from './memory-output';
import { MEMORY_REF_TEXT, memoryIdOf, memoryRefArgs, type MemoryRefDeps } from './memory-ref';
import { answer, run } from './tool-helpers';
import { toolInput, unit } from './tool-schema';

export const historyInput = toolInput(memoryRefArgs);
export const historyOutput = z.object({
  memory_id: z.string().meta({ format: 'uuid' }),
  versions: z.array(VersionOut).describe('newest first; the first is the current content'),
});

/** `history`: every version of one memory, newest first (`GET /v1/memory/:id/history`). Not an access. */
export function registerHistoryTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService, deps: MemoryRefDeps): void {
  server.registerTool(
    'history',
    {
      title: 'Memory history',
      description:
        'Every version of one memory, newest first: what it said before each change, who changed it (a person, an agent, the application or the server) and when. ' +
        `Use it when the user asks what they said earlier or when something changed. ${MEMORY_REF_TEXT} Errors: "memory not found" when there is no such memory.`,
      inputSchema: historyInput,
      outputSchema: historyOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const id = await memoryIdOf(deps, scope, args);
        const found = await reads.history(scope, id);
        const versions = found.items.map((v) => ({
          version: v.version,
          change: v.change,
          content: v.content,
          tags: v.tags,
          priority: v.priority,
          source: v.source,
          verified: v.verified,
          confidence: unit(v.confidence),
          expires_at: v.expires_at,
          occurred_at: v.occurred_at,
          changed_by: v.actor_type,
          at: v.created_at,
        }));
        const text = versions.map((v) => `v${v.version} ${v.at} ${v.change} by ${v.changed_by}: ${v.content}`).join('\n');
        return answer({ memory_id: found.memory_id, versions }, text);
      }),
  );
}

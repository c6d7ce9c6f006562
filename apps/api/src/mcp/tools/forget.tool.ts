import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoriesRepository, TenantDb } from '@engram/db';
import type { MemoryCategory } from '@engram/memory';
import { AppError } from '@engram/services';
import { ParseIdPipe } from '../../common/ids';
import type { MemoryScope } from '../../memory/memory-scope';
import type { MemoryWriteService } from '../../memory/memory-write.service';
import { UpsertMemorySchema } from '../../memory/memory.dto';
import type { MindAccess } from '@engram/services';
import { CATEGORY_TEXT, json, parseAs, run } from './tool-helpers';

const memoryId = new ParseIdPipe('memory');

/** What `forget` needs: the writer to delete, and the reads that find a memory by (category, key). */
export interface ForgetToolDeps {
  writes: MemoryWriteService;
  tenantDb: TenantDb;
  minds: MindAccess;
  memories: MemoriesRepository;
}

/** `forget`: deletes a memory of the scope's mind, named by id or by (category, key). */
export function registerForgetTool(server: McpServer, scope: MemoryScope, deps: ForgetToolDeps): void {
  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        'Deletes a memory and its history, named by `id` or by `category` and `key`. Answers {deleted: id}. ' +
        'Errors: "memory not found" (also for ids of other minds or tenants), or the field and rule of a bad category or key.',
      inputSchema: z.strictObject({
        id: z.string().optional().describe('the memory id (UUID)'),
        category: z.string().optional().describe(`with key instead of id: ${CATEGORY_TEXT}`),
        key: z.string().optional().describe('with category instead of id'),
      }),
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      run(async () => {
        const id = await memoryIdOf(deps, scope, args);
        await deps.writes.delete(scope, id);
        return json({ deleted: id });
      }),
  );
}

/** The id of the memory `forget` names: by id, or by (category, key) of this mind. @throws AppError 400, 404 */
async function memoryIdOf(deps: ForgetToolDeps, scope: MemoryScope, args: { id?: string; category?: string; key?: string }): Promise<string> {
  const byKey = args.category !== undefined || args.key !== undefined;
  if (args.id !== undefined) {
    if (byKey) throw AppError.badField('id', 'give id, or category and key, not both');
    return memoryId.transform(args.id);
  }
  if (!byKey) throw AppError.badField('id', 'is required (or category and key)');
  const named = parseAs(UpsertMemorySchema.pick({ category: true, key: true }), args);
  const found = await deps.tenantDb.run(scope.tenantId, async (tx) => {
    await deps.minds.require(tx, scope);
    return deps.memories.findByKeyForUpdate(tx, scope.mindId, named.category as MemoryCategory, named.key);
  });
  if (!found) throw AppError.notFound('memory');
  return found.id;
}

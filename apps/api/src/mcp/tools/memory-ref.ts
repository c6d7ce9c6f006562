import type { MemoriesRepository, TenantDb } from '@engram/db';
import type { MemoryCategory } from '@engram/memory';
import { AppError, type MindAccess } from '@engram/services';
import { ParseIdPipe } from '../../common/ids';
import { memoryField } from '../../memory/memory-fields';
import type { MemoryScope } from '../../memory/memory-scope';
import { UpsertMemorySchema } from '../../memory/memory.dto';
import { CATEGORY_GUIDE, KEY_GUIDE } from './guidance';
import { parseAs } from './tool-helpers';
import { arg, jsonOf } from './tool-schema';

const memoryId = new ParseIdPipe('memory');
const byKeySchema = UpsertMemorySchema.pick({ category: true, key: true });

/** What finds a memory of the scope's mind by (category, key). */
export interface MemoryRefDeps {
  tenantDb: TenantDb;
  minds: MindAccess;
  memories: MemoriesRepository;
}

/** How a tool names one memory: by `id`, or by `category` and `key` (as recall and search show them). */
export interface MemoryRef {
  id?: unknown;
  category?: unknown;
  key?: unknown;
}

/** A key as a tool argument: the REST rule (pattern, at most 128 characters), not empty, with an example. */
export const KEY_JSON = { ...jsonOf(memoryField.key), minLength: 1, examples: ['user_employer'] };

/** The arguments that name one memory, advertised with the API's enum and key pattern. */
export const memoryRefArgs = {
  id: arg({ type: 'string', format: 'uuid' }, 'The memory id, as search, get or remember answer it. Give id, or category and key.'),
  category: arg(jsonOf(memoryField.category), `With key, instead of id. ${CATEGORY_GUIDE}`),
  key: arg(KEY_JSON, `With category, instead of id: the key the memory was stored under (recall and search show it).`),
};

/** The part of a tool's description that says how to name the memory. */
export const MEMORY_REF_TEXT = 'Name the memory by id, or by category and key (as recall and search show them).';

/**
 * The id of the memory a tool names, in the scope's mind.
 * @throws AppError 400 naming the field (neither or both ways given; a bad category or key);
 *   404 `memory not found` for an unknown id or key, and alike for another mind's or tenant's id
 */
export async function memoryIdOf(deps: MemoryRefDeps, scope: MemoryScope, ref: MemoryRef): Promise<string> {
  const byKey = ref.category !== undefined || ref.key !== undefined;
  if (ref.id !== undefined) {
    if (byKey) throw AppError.badField('id', 'give id, or category and key, not both');
    if (typeof ref.id !== 'string') throw AppError.badField('id', 'must be a memory id (UUID)');
    return memoryId.transform(ref.id);
  }
  if (!byKey) throw AppError.badField('id', 'is required (or category and key)');
  // One of the pair alone: the other is missing, not of the wrong type (helper 34's: "key: must be a string").
  if (ref.key === undefined) throw AppError.badField('key', 'is required with category');
  if (ref.category === undefined) throw AppError.badField('category', 'is required with key');
  const named = parseAs(byKeySchema, { category: ref.category, key: ref.key });
  const found = await deps.tenantDb.run(scope.tenantId, async (tx) => {
    await deps.minds.require(tx, scope);
    return deps.memories.findByKeyForUpdate(tx, scope.mindId, named.category as MemoryCategory, named.key);
  });
  if (!found) throw AppError.notFound('memory');
  return found.id;
}

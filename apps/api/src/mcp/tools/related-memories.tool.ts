import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryReadService } from '../../memory/memory-read.service';
import type { MemoryScope } from '../../memory/memory-scope';
import { AssociationPageSchema, AssociationsQuerySchema } from '../../memory/memory.dto';
import { handle } from './memory-output';
import { MEMORY_REF_TEXT, memoryIdOf, memoryRefArgs, type MemoryRefDeps } from './memory-ref';
import { answer, asParam, defined, parseAs, run } from './tool-helpers';
import { arg, dateTimeOut, propertyOf, toolInput, unit } from './tool-schema';

const property = (name: string) => propertyOf(AssociationsQuerySchema, name);
const link = AssociationPageSchema.shape.items.element.shape;

/** What each relation means, in a model's words (what the other memory is to the one named). */
const RELATION_TEXT =
  'What the related memory is to the one named: similar_to (close in meaning), precedes / follows (said or happened just before / after it in the same conversation), ' +
  'shares_entity (names the same person, place or thing; see via), causes / effects, generalises (the general memory drawn from this one and others like it), ' +
  'generalised_into (one of the specific memories this general one was drawn from).';

/** Advertised arguments: the memory, and the REST list's relation filter and limit (one page, strongest first). */
export const relatedMemoriesInput = toolInput({
  ...memoryRefArgs,
  relation: arg(property('relation'), `Only links of this kind. ${RELATION_TEXT}`),
  limit: arg(property('limit'), 'How many related memories at most (strongest links first).'),
});

export const relatedMemoriesOutput = z.object({
  memory_id: z.string().meta({ format: 'uuid' }),
  items: z
    .array(
      z.object({
        relation: link.relation.describe(RELATION_TEXT),
        weight: z.number().min(0).max(1).describe('How strong the link is, 0..1 (3 decimals): how close in meaning, how near in the conversation, how rare the shared name; 1 for a general memory and its specific ones'),
        via: z.string().nullable().describe('the name both memories mention (shares_entity); else null'),
        direction: link.direction.describe('out: found from the named memory; in: found from the related one'),
        created_at: dateTimeOut.describe('when the link was made'),
        memory: z.object({
          id: z.string().meta({ format: 'uuid' }),
          category: link.memory.shape.category,
          key: z.string(),
          content: z.string(),
          memory_type: link.memory.shape.memory_type,
          occurred_at: dateTimeOut,
        }),
      }),
    )
    .describe('strongest first'),
});

/**
 * `related_memories`: one page of a memory's links, strongest first (`GET
 * /v1/memory/:id/associations`, without its cursor: `limit` up to 100 is the page). Not an access.
 */
export function registerRelatedMemoriesTool(server: McpServer, scope: MemoryScope, reads: MemoryReadService, deps: MemoryRefDeps): void {
  server.registerTool(
    'related_memories',
    {
      title: 'Related memories',
      description:
        'The memories linked to one memory, strongest link first: those close in meaning, those just before or after it in the same conversation, ' +
        'those naming the same person, place or thing, and general memories drawn from specific ones. Use it to follow a thread from a memory ' +
        `that search found: what happened next, what else is known about the same person. ${MEMORY_REF_TEXT} ` +
        'Links are made in the background, so a memory stored a moment ago may have none yet. Reading them does not count as a use. ' +
        'Errors: "memory not found" when there is no such memory.',
      inputSchema: relatedMemoriesInput,
      outputSchema: relatedMemoriesOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const query = parseAs(AssociationsQuerySchema, defined({ relation: args.relation, limit: asParam(args.limit) }));
        const id = await memoryIdOf(deps, scope, args);
        const found = await reads.associations(scope, id, query);
        const items = found.items.map((l) => ({ ...l, weight: unit(l.weight) }));
        const text =
          items.length === 0
            ? 'no related memories (yet)'
            : items.map((l) => `${l.relation}${l.via ? ` (${l.via})` : ''} ${l.weight.toFixed(2)} ${handle(l.memory)}: ${l.memory.content}`).join('\n');
        return answer({ memory_id: found.memory_id, items }, text);
      }),
  );
}

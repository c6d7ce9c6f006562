import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import { createZodDto, ZodResponse } from 'nestjs-zod';
import { z } from 'zod';
import { CLOCK, type Clock } from '@engram/config';
import { AssociationsRepository, MemoriesRepository, TenantDb } from '@engram/db';
import { MEMORY_LAYERS, MEMORY_TIERS, type MemoryLayer, type MemoryTier } from '@engram/memory';
import { ServiceKeyScopeNeeded } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';
import { CurrentMemoryScope, type MemoryScope } from './memory-scope';
import { MindAccess } from '@engram/services';

const count = z.number().int().nonnegative();

export const MemoryStatsSchema = z.object({
  mind_id: z.uuid(),
  /** Every memory of the mind: expired and soft-forgotten ones included. */
  total: count,
  by_layer: z.object({ working: count, short_term: count, long_term: count }),
  by_tier: z.object({ hot: count, warm: count, cold: count, archive: count }),
  /** Soft-forgotten (out of recall, ranked down in search); counted in the layers and tiers too. */
  forgotten: count,
  /** Expired at `as_of` (hidden from lists, search and recall); counted in the layers and tiers too. */
  expired: count,
  /** The association graph (docs/design.md §6.8): its links, and the memories the association job has yet to link (new or changed). */
  associations: z.object({ links: count, unlinked: count }),
  as_of: z.iso.datetime({ offset: true }),
});
export class MemoryStatsDto extends createZodDto(MemoryStatsSchema) {}

/**
 * `GET /v1/memory/stats`: how many memories the mind holds per layer and per tier (the memory
 * inspector's counts). Scoped like every memory request: a Mind Key's own mind, or a person's
 * `X-Mind-Id` (404 for a mind outside the tenant; row-level security keeps the count to the
 * tenant). One aggregate query; not an access of any memory.
 *
 * Registered before {@link MemoryController} in the AppModule: Express matches routes in order,
 * and `memory/:id` would otherwise take `memory/stats`.
 */
@ApiTags('memory')
@ApiBearerAuth()
@ApiHeader({ name: 'X-Mind-Id', required: false, description: 'the mind to act on; required with a user JWT or a service key' })
@Controller({ path: 'memory/stats', version: '1' })
export class MemoryStatsController {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
    private readonly associations: AssociationsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Counts of the mind's memories: `{total, by_layer, by_tier, forgotten, expired, associations: {links, unlinked}, as_of}`. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get()
  @Documented({ summary: "Count the mind's memories per layer and tier", errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryStatsDto })
  async stats(@CurrentMemoryScope() scope: MemoryScope) {
    const now = this.clock.now();
    const { rows, graph } = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return { rows: await this.memories.countsByLayerAndTier(tx, scope.mindId, now), graph: await this.associations.counts(tx, scope.mindId) };
    });
    const byLayer = Object.fromEntries(MEMORY_LAYERS.map((l) => [l, 0])) as Record<MemoryLayer, number>;
    const byTier = Object.fromEntries(MEMORY_TIERS.map((t) => [t, 0])) as Record<MemoryTier, number>;
    let total = 0;
    let forgotten = 0;
    let expired = 0;
    for (const row of rows) {
      byLayer[row.layer as MemoryLayer] += row.n;
      byTier[row.tier as MemoryTier] += row.n;
      total += row.n;
      forgotten += row.forgotten;
      expired += row.expired;
    }
    return { mind_id: scope.mindId, total, by_layer: byLayer, by_tier: byTier, forgotten, expired, associations: graph, as_of: now.toISOString() };
  }
}

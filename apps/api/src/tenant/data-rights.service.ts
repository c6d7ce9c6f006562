import { Injectable } from '@nestjs/common';
import { MemoriesRepository, MemoryVersionsRepository, MindsRepository, StmRepository, TenantDb, TenantsRepository, TombstonesRepository, WebhooksRepository } from '@engram/db';
import { AppError, type FieldProblem } from '@engram/services';
import type { UserPrincipal } from '../auth/principal';
import { KeyLookupCache } from '../auth/key-lookup-cache';

/**
 * Data rights (docs/data-rights.md): purge a mind's memories, delete the tenant. Owners only
 * (the controller checks); export and import are TenantExport and TenantImport.
 */
@Injectable()
export class DataRightsService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly tenants: TenantsRepository,
    private readonly minds: MindsRepository,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly tombstones: TombstonesRepository,
    private readonly stm: StmRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly keyLookups: KeyLookupCache,
  ) {}

  /**
   * Deletes every memory of a mind with its history, its eviction tombstones and the short-term
   * memory of its conversations (what the sleep cycle or an explicit save would otherwise turn
   * into memories again), and the webhook deliveries about them (pending ones would still send the
   * content), in one transaction; the mind, its keys and its conversation messages stay.
   * @returns `{mind_id, memories, versions, tombstones, stm_entries, webhook_deliveries}`: how many of each were deleted
   * @throws AppError 404 when the mind is not this tenant's.
   */
  async purgeMind(principal: UserPrincipal, mindId: string) {
    return this.tenantDb.run(principal.tenantId, async (tx) => {
      if (!(await this.minds.findById(tx, mindId, { forUpdate: true }))) throw AppError.notFound('mind');
      const versions = await this.versions.deleteForMind(tx, mindId);
      const memories = await this.memories.deleteForMind(tx, mindId);
      const tombstones = await this.tombstones.deleteForMind(tx, mindId);
      const stmEntries = await this.stm.deleteForMind(tx, mindId);
      const deliveries = await this.webhooks.deleteForMind(tx, mindId);
      return { mind_id: mindId, memories, versions, tombstones, stm_entries: stmEntries, webhook_deliveries: deliveries };
    });
  }

  /**
   * Deletes the tenant and, by cascade, everything in it: users (so every token of it answers
   * 401), minds, keys, memories, history, messages, STM, tombstones.
   * @throws AppError 400 naming `confirm` unless it is the tenant's name exactly.
   */
  async deleteTenant(principal: UserPrincipal, confirm: string): Promise<void> {
    await this.tenantDb.run(principal.tenantId, async (tx) => {
      const tenant = await this.tenants.findForUpdate(tx);
      if (!tenant) throw AppError.notFound('tenant');
      if (confirm !== tenant.name) {
        const problem: FieldProblem = { field: 'confirm', message: "must be the tenant's name, exactly" };
        throw new AppError('bad_request', `confirm: ${problem.message}`, [problem]);
      }
      await this.tenants.delete(tx);
    });
    // Its keys went with it: no cached look-up may still let them in.
    this.keyLookups.clear();
  }
}

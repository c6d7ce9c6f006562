import { Injectable } from '@nestjs/common';
import { TenantDb } from '@engram/db';
import type { UserPrincipal } from '../auth/principal';
import { AppError, type FieldProblem } from '../common/app-error';

/**
 * Data rights (issue 8): purge a mind's memories, delete the tenant. Owners only (the
 * controller checks); export and import are TenantExport and TenantImport.
 */
@Injectable()
export class DataRightsService {
  constructor(private readonly tenantDb: TenantDb) {}

  /**
   * Deletes every memory of a mind with its history and its eviction tombstones, in one
   * transaction; the mind, its keys and its conversation messages stay.
   * @throws AppError 404 when the mind is not this tenant's.
   */
  async purgeMind(principal: UserPrincipal, mindId: string) {
    return this.tenantDb.run(principal.tenantId, async (tx) => {
      const mind = await tx.trx.selectFrom('minds').select('id').where('tenant_id', '=', tx.tenantId).where('id', '=', mindId).forUpdate().executeTakeFirst();
      if (!mind) throw AppError.notFound('mind');
      const versions = await tx.trx.deleteFrom('memory_versions').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
      const memories = await tx.trx.deleteFrom('memories').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
      const tombstones = await tx.trx.deleteFrom('memory_tombstones').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
      return {
        mind_id: mindId,
        memories: Number(memories.numDeletedRows),
        versions: Number(versions.numDeletedRows),
        tombstones: Number(tombstones.numDeletedRows),
      };
    });
  }

  /**
   * Deletes the tenant and, by cascade, everything in it: users (so every token of it answers
   * 401), minds, keys, memories, history, messages, STM, tombstones.
   * @throws AppError 400 naming `confirm` unless it is the tenant's name exactly.
   */
  async deleteTenant(principal: UserPrincipal, confirm: string): Promise<void> {
    await this.tenantDb.run(principal.tenantId, async (tx) => {
      const tenant = await tx.trx.selectFrom('tenants').select('name').where('id', '=', tx.tenantId).forUpdate().executeTakeFirst();
      if (!tenant) throw AppError.notFound('tenant');
      if (confirm !== tenant.name) {
        const problem: FieldProblem = { field: 'confirm', message: "must be the tenant's name, exactly" };
        throw new AppError('bad_request', `confirm: ${problem.message}`, [problem]);
      }
      await tx.trx.deleteFrom('tenants').where('id', '=', tx.tenantId).execute();
    });
  }
}

import { Injectable } from '@nestjs/common';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';

/** What eviction leaves of a memory (`memory_tombstones`; the forgetting sweep writes them). */
@Injectable()
export class TombstonesRepository {
  /** Deletes the tombstones of a mind's evicted memories. @returns how many. */
  @GenerateSql({ params: [SAMPLE.uuid] })
  async deleteForMind(tx: TenantTx, mindId: string): Promise<number> {
    const result = await tx.trx.deleteFrom('memory_tombstones').where('tenant_id', '=', tx.tenantId).where('mind_id', '=', mindId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

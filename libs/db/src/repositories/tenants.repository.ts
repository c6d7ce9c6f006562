import { Injectable } from '@nestjs/common';
import type { TenantTx } from '../tenant-db';
import type { Tenant } from '../schema';

@Injectable()
export class TenantsRepository {
  /** Creates the tenant of `tx` (its id is the transaction's tenant). */
  create(tx: TenantTx, name: string): Promise<Tenant> {
    return tx.trx
      .insertInto('tenants')
      .values({ id: tx.tenantId, name })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(tx: TenantTx): Promise<Tenant | undefined> {
    return tx.trx.selectFrom('tenants').selectAll().where('id', '=', tx.tenantId).executeTakeFirst();
  }
}

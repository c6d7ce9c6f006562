import { Injectable } from '@nestjs/common';
import type { TenantTx } from '../tenant-db';
import type { Mind } from '../schema';

@Injectable()
export class MindsRepository {
  create(tx: TenantTx, mind: { id: string; name: string; description: string | null }): Promise<Mind> {
    return tx.trx
      .insertInto('minds')
      .values({ ...mind, tenant_id: tx.tenantId })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  findById(tx: TenantTx, id: string): Promise<Mind | undefined> {
    return tx.trx
      .selectFrom('minds')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Minds newest first (ids are UUIDv7), `limit` per page, after the id `after`. */
  list(tx: TenantTx, page: { after?: string; limit: number; name?: string }): Promise<Mind[]> {
    let query = tx.trx.selectFrom('minds').selectAll().where('tenant_id', '=', tx.tenantId);
    if (page.after) query = query.where('id', '<', page.after);
    if (page.name) query = query.where('name', '=', page.name);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** Deletes a mind with its keys, memories and messages (cascade). @returns whether it existed. */
  async delete(tx: TenantTx, id: string): Promise<boolean> {
    const result = await tx.trx
      .deleteFrom('minds')
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

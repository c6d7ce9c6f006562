import { Injectable } from '@nestjs/common';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { Mind } from '../schema';

const M = SAMPLE.uuid;

@Injectable()
export class MindsRepository {
  @GenerateSql({ params: [{ id: M, name: 'm', description: null }] })
  create(tx: TenantTx, mind: { id: string; name: string; description: string | null }): Promise<Mind> {
    return tx.trx
      .insertInto('minds')
      .values({ ...mind, tenant_id: tx.tenantId })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  @GenerateSql({ name: 'plain', params: [M] }, { name: 'for update', params: [M, { forUpdate: true }] })
  findById(tx: TenantTx, id: string, options: { forUpdate?: boolean } = {}): Promise<Mind | undefined> {
    const query = tx.trx.selectFrom('minds').selectAll().where('tenant_id', '=', tx.tenantId).where('id', '=', id);
    return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
  }

  /** The minds with this id or this name (an import matches by id, then by name). */
  @GenerateSql({ params: [M, 'm'] })
  findByIdOrName(tx: TenantTx, id: string, name: string): Promise<Mind[]> {
    return tx.trx
      .selectFrom('minds')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', name)]))
      .execute();
  }

  /** Minds newest first (ids are UUIDv7), `limit` per page, after the id `after`. */
  @GenerateSql({ params: [{ after: M, limit: SAMPLE.limit, name: 'm' }] })
  list(tx: TenantTx, page: { after?: string; limit: number; name?: string }): Promise<Mind[]> {
    let query = tx.trx.selectFrom('minds').selectAll().where('tenant_id', '=', tx.tenantId);
    if (page.after) query = query.where('id', '<', page.after);
    if (page.name) query = query.where('name', '=', page.name);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** Minds oldest id first, after the id `after` (an export, page by page). */
  @GenerateSql({ params: [M, SAMPLE.limit] })
  page(tx: TenantTx, after: string | undefined, limit: number): Promise<Mind[]> {
    let query = tx.trx.selectFrom('minds').selectAll().where('tenant_id', '=', tx.tenantId);
    if (after) query = query.where('id', '>', after);
    return query.orderBy('id').limit(limit).execute();
  }

  /** Deletes a mind with its keys, memories and messages (cascade). @returns whether it existed. */
  @GenerateSql({ params: [M] })
  async delete(tx: TenantTx, id: string): Promise<boolean> {
    const result = await tx.trx
      .deleteFrom('minds')
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

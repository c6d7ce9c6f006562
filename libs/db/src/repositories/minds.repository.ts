import { Injectable } from '@nestjs/common';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { Mind } from '../schema';

const M = SAMPLE.uuid;

@Injectable()
export class MindsRepository {
  @GenerateSql({ params: [{ id: M, name: 'm', description: null, external_id: 'user-1' }] })
  create(tx: TenantTx, mind: { id: string; name: string; description: string | null; external_id?: string | null; created_at?: string; updated_at?: string }): Promise<Mind> {
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

  /**
   * The mind with this external id, created with `mind` when there is none: one statement, so
   * concurrent calls for one external id agree on one mind. @returns the mind and whether this
   * call created it. A name taken by another mind raises the unique violation (23505) on `name`.
   */
  @GenerateSql({ params: [{ id: M, name: 'm', description: null, external_id: 'user-1' }] })
  async findOrCreateByExternalId(
    tx: TenantTx,
    mind: { id: string; name: string; description: string | null; external_id: string },
  ): Promise<{ mind: Mind; created: boolean }> {
    const inserted = await tx.trx
      .insertInto('minds')
      .values({ ...mind, tenant_id: tx.tenantId })
      .onConflict((oc) => oc.columns(['tenant_id', 'external_id']).where('external_id', 'is not', null).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { mind: inserted, created: true };
    const found = await tx.trx
      .selectFrom('minds')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('external_id', '=', mind.external_id)
      .executeTakeFirstOrThrow();
    return { mind: found, created: false };
  }

  /** The minds with this id, this name or this external id (an import matches by id, then external id, then name). */
  @GenerateSql({ params: [M, 'm', 'user-1'] })
  findByIdOrName(tx: TenantTx, id: string, name: string, externalId: string | null): Promise<Mind[]> {
    return tx.trx
      .selectFrom('minds')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', name), ...(externalId !== null ? [eb('external_id', '=', externalId)] : [])]))
      .execute();
  }

  /** Minds newest first (ids are UUIDv7), `limit` per page, after the id `after`. */
  @GenerateSql({ params: [{ after: M, limit: SAMPLE.limit, name: 'm', externalId: 'user-1' }] })
  list(tx: TenantTx, page: { after?: string; limit: number; name?: string; externalId?: string }): Promise<Mind[]> {
    let query = tx.trx.selectFrom('minds').selectAll().where('tenant_id', '=', tx.tenantId);
    if (page.after) query = query.where('id', '<', page.after);
    if (page.name) query = query.where('name', '=', page.name);
    if (page.externalId) query = query.where('external_id', '=', page.externalId);
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

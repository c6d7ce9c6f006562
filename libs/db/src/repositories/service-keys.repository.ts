import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { TenantTx } from '../tenant-db';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { DB, ServiceKey, ServiceKeyScope } from '../schema';

/** A service key as found by its hash, before its tenant is known. */
export interface ServiceKeyIdentity {
  tenant_id: string;
  id: string;
  scopes: ServiceKeyScope[];
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export type ServiceKeyListing = Omit<ServiceKey, 'key_hash' | 'tenant_id'>;

const LISTING = ['id', 'name', 'scopes', 'key_prefix', 'created_by', 'created_at', 'last_used_at', 'revoked_at'] as const;

/** Tenant service keys (migration 20261201100000_service_keys.sql). */
@Injectable()
export class ServiceKeysRepository {
  @GenerateSql({ params: [{ id: SAMPLE.uuid, name: 'k', scopes: ['memories:read'], key_prefix: 'esk_x', key_hash: 'h', created_by: null }] })
  create(
    tx: TenantTx,
    key: { id: string; name: string; scopes: ServiceKeyScope[]; key_prefix: string; key_hash: string; created_by: string | null },
  ): Promise<ServiceKeyListing> {
    return tx.trx
      .insertInto('service_keys')
      .values({ ...key, tenant_id: tx.tenantId })
      .returning(LISTING)
      .executeTakeFirstOrThrow();
  }

  /** The tenant's keys newest first (ids are UUIDv7), `limit` per page, after the id `after`. */
  @GenerateSql({ params: [{ after: SAMPLE.uuid, limit: SAMPLE.limit }] })
  list(tx: TenantTx, page: { after?: string; limit: number }): Promise<ServiceKeyListing[]> {
    let query = tx.trx.selectFrom('service_keys').select(LISTING).where('tenant_id', '=', tx.tenantId);
    if (page.after) query = query.where('id', '<', page.after);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** Marks a key revoked (keeps the first revocation time). @returns whether the key exists. */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.date] })
  async revoke(tx: TenantTx, id: string, at: Date): Promise<boolean> {
    const result = await tx.trx
      .updateTable('service_keys')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${at})` })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Records that a key was used at `at`. */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.date] })
  async touch(tx: TenantTx, id: string, at: Date): Promise<void> {
    await tx.trx.updateTable('service_keys').set({ last_used_at: at }).where('tenant_id', '=', tx.tenantId).where('id', '=', id).execute();
  }

  /**
   * The key with this SHA-256 hash, across tenants, through the security-definer function
   * `auth_find_service_key`: the only cross-tenant read of service keys.
   */
  @GenerateSql({ params: ['h'], withoutTenant: true })
  async findByHash(db: Kysely<DB>, keyHash: string): Promise<ServiceKeyIdentity | undefined> {
    const result = await sql<ServiceKeyIdentity>`select * from auth_find_service_key(${keyHash})`.execute(db);
    return result.rows[0];
  }
}

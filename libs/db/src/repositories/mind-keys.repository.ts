import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { TenantTx } from '../tenant-db';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { DB, MindKey } from '../schema';

/** A Mind Key as found by its hash, before its tenant is known. */
export interface MindKeyIdentity {
  tenant_id: string;
  id: string;
  mind_id: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export type MindKeyListing = Omit<MindKey, 'key_hash' | 'tenant_id'>;

@Injectable()
export class MindKeysRepository {
  @GenerateSql({ params: [{ id: SAMPLE.uuid, mind_id: SAMPLE.uuid2, name: 'k', key_prefix: 'emk_x', key_hash: 'h', created_by: null }] })
  create(
    tx: TenantTx,
    key: { id: string; mind_id: string; name: string; key_prefix: string; key_hash: string; created_by: string | null },
  ): Promise<MindKeyListing> {
    return tx.trx
      .insertInto('mind_keys')
      .values({ ...key, tenant_id: tx.tenantId })
      .returning(['id', 'mind_id', 'name', 'key_prefix', 'created_by', 'created_at', 'last_used_at', 'revoked_at'])
      .executeTakeFirstOrThrow();
  }

  @GenerateSql({ params: [SAMPLE.uuid] })
  listForMind(tx: TenantTx, mindId: string): Promise<MindKeyListing[]> {
    return tx.trx
      .selectFrom('mind_keys')
      .select(['id', 'mind_id', 'name', 'key_prefix', 'created_by', 'created_at', 'last_used_at', 'revoked_at'])
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .orderBy('id', 'desc')
      .execute();
  }

  /** Marks a key revoked (keeps the first revocation time). @returns whether the key exists. */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.uuid2, SAMPLE.date] })
  async revoke(tx: TenantTx, mindId: string, id: string, at: Date): Promise<boolean> {
    const result = await tx.trx
      .updateTable('mind_keys')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${at})` })
      .where('tenant_id', '=', tx.tenantId)
      .where('mind_id', '=', mindId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Records that a key was used at `at`. */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.date] })
  async touch(tx: TenantTx, id: string, at: Date): Promise<void> {
    await tx.trx
      .updateTable('mind_keys')
      .set({ last_used_at: at })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * The key with this SHA-256 hash, across tenants, through the security-definer function
   * `auth_find_mind_key`: the only cross-tenant read of Mind Keys.
   */
  @GenerateSql({ params: ['h'], withoutTenant: true })
  async findByHash(db: Kysely<DB>, keyHash: string): Promise<MindKeyIdentity | undefined> {
    const result = await sql<MindKeyIdentity>`select * from auth_find_mind_key(${keyHash})`.execute(db);
    return result.rows[0];
  }
}

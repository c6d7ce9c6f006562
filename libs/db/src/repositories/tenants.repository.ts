import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { GenerateSql } from '../sql-snapshot';
import type { TenantTx } from '../tenant-db';
import type { DB, Tenant } from '../schema';

@Injectable()
export class TenantsRepository {
  /** Creates the tenant of `tx` (its id is the transaction's tenant). */
  @GenerateSql({ params: ['Acme'] })
  create(tx: TenantTx, name: string): Promise<Tenant> {
    return tx.trx.insertInto('tenants').values({ id: tx.tenantId, name }).returningAll().executeTakeFirstOrThrow();
  }

  @GenerateSql()
  find(tx: TenantTx): Promise<Tenant | undefined> {
    return tx.trx.selectFrom('tenants').selectAll().where('id', '=', tx.tenantId).executeTakeFirst();
  }

  /** The tenant row, locked until the transaction ends (its deletion checks its name first). */
  @GenerateSql()
  findForUpdate(tx: TenantTx): Promise<Tenant | undefined> {
    return tx.trx.selectFrom('tenants').selectAll().where('id', '=', tx.tenantId).forUpdate().executeTakeFirst();
  }

  /**
   * Deletes the tenant and, by cascade, every row of it in every table. Its users explicitly
   * first: on Citus `users` is a reference table without the foreign key (libs/db/src/citus.ts).
   */
  @GenerateSql()
  async delete(tx: TenantTx): Promise<void> {
    await tx.trx.deleteFrom('users').where('tenant_id', '=', tx.tenantId).execute();
    await tx.trx.deleteFrom('tenants').where('id', '=', tx.tenantId).execute();
  }

  /** The tenant's settings document (`{lifecycle: {...overrides}}`). */
  @GenerateSql()
  async settings(tx: TenantTx): Promise<Record<string, unknown>> {
    const row = await tx.trx.selectFrom('tenants').select('settings').where('id', '=', tx.tenantId).executeTakeFirst();
    return row?.settings ?? {};
  }

  /** Replaces one section of the settings document. */
  @GenerateSql({ params: ['lifecycle', { retention: { preset: 'seed' } }] })
  async setSettingsSection(tx: TenantTx, section: string, value: unknown): Promise<void> {
    await tx.trx
      .updateTable('tenants')
      .set((eb) => ({
        settings: sql`jsonb_set(${eb.ref('settings')}, ${sql.lit(`{${section}}`)}::text[], ${JSON.stringify(value)}::jsonb, true)`,
        updated_at: sql`now()`,
      }))
      .where('id', '=', tx.tenantId)
      .execute();
  }

  /** Every tenant's id, for work that fans out per tenant (security-definer `engram_tenant_ids`: no tenant is set yet). */
  @GenerateSql({ params: [], withoutTenant: true })
  async allIds(db: Kysely<DB>): Promise<string[]> {
    const result = await sql<{ id: string }>`select id from engram_tenant_ids()`.execute(db);
    return result.rows.map((r) => r.id);
  }

  /** The tenants with memories waiting for a vector (one security-definer look-up, ids only). */
  @GenerateSql({ params: [], withoutTenant: true })
  async withPendingEmbeddings(db: Kysely<DB>): Promise<string[]> {
    const result = await sql<{ id: string }>`select id from engram_tenants_with_pending_embeddings()`.execute(db);
    return result.rows.map((r) => r.id);
  }

  /** The tenants with memories to link into the association graph (one security-definer look-up, ids only). */
  @GenerateSql({ params: [], withoutTenant: true })
  async withUnlinkedMemories(db: Kysely<DB>): Promise<string[]> {
    const result = await sql<{ id: string }>`select id from engram_tenants_with_unlinked_memories()`.execute(db);
    return result.rows.map((r) => r.id);
  }
}

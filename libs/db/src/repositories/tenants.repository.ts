import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
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

  /** The tenant's settings document (`{lifecycle: {...overrides}}`). */
  async settings(tx: TenantTx): Promise<Record<string, unknown>> {
    const row = await tx.trx.selectFrom('tenants').select('settings').where('id', '=', tx.tenantId).executeTakeFirst();
    return row?.settings ?? {};
  }

  /** Replaces one section of the settings document. */
  async setSettingsSection(tx: TenantTx, section: string, value: unknown): Promise<void> {
    await tx.trx
      .updateTable('tenants')
      .set((eb) => ({
        settings: sql`jsonb_set(${eb.ref('settings')}, ${sql.lit(`{${section}}`)}::text[], ${JSON.stringify(value)}::jsonb, true)`,
        updated_at: new Date(),
      }))
      .where('id', '=', tx.tenantId)
      .execute();
  }

  find(tx: TenantTx): Promise<Tenant | undefined> {
    return tx.trx.selectFrom('tenants').selectAll().where('id', '=', tx.tenantId).executeTakeFirst();
  }
}

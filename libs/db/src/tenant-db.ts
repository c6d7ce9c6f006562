import { Inject, Injectable } from '@nestjs/common';
import { Kysely, sql, type Transaction } from 'kysely';
import type { DB } from './schema';

/** Injection token of the app's `Kysely<DB>`. */
export const DATABASE = Symbol('DATABASE');

/**
 * One tenant's unit of work: a transaction whose row-level security is set to `tenantId`.
 * Repository methods take it first, so a query without a tenant does not compile
 * (CONVENTIONS "Database").
 */
export interface TenantTx {
  readonly trx: Transaction<DB>;
  readonly tenantId: string;
}

@Injectable()
export class TenantDb {
  constructor(@Inject(DATABASE) private readonly db: Kysely<DB>) {}

  /**
   * Runs `work` in one transaction whose first statement sets `app.tenant_id` (transaction-local)
   * for the RLS policies; commits when it resolves, rolls back when it throws.
   */
  run<T>(tenantId: string, work: (tx: TenantTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select set_config('app.tenant_id', ${tenantId}, true)`.execute(trx);
      return work({ trx, tenantId });
    });
  }

  /**
   * Runs `work` with no tenant set: RLS hides every tenant row. Only for the security-definer
   * look-ups that find the tenant (login, Mind Key) and for health checks.
   */
  runWithoutTenant<T>(work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return work(this.db);
  }
}

import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { LifecycleSettings, TenantDb, retentionNowSql } from '@engram/db';

/** Rows per statement: large enough to be set-based, small enough to keep locks short. */
export const SWEEP_BATCH = 5000;

/**
 * The forgetting sweep of one tenant (DESIGN §5 "Forgetting"): every memory whose retention now
 * is below the soft threshold (0.3) is soft-forgotten (hidden from recall, ranked ×0.1 in search,
 * restorable); `critical` memories are pinned. Set-based, in batches; running it twice at the
 * same instant changes nothing the second time.
 *
 * @returns how many memories it soft-forgot.
 */
@Injectable()
export class ForgettingSweep {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
  ) {}

  async softForget(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    let total = 0;
    for (;;) {
      const n = await this.tenantDb.run(tenantId, async ({ trx, tenantId: t }) => {
        const result = await sql`
          update memories set forgotten_at = ${now}::timestamptz
          where tenant_id = ${t} and id in (
            select id from memories
            where tenant_id = ${t} and forgotten_at is null and priority <> 'critical'
              and current_retention is not null
              and ${retentionNowSql(config, now)} < ${config.forgetting.soft_threshold}::float8
            limit ${SWEEP_BATCH}
            for update skip locked)`.execute(trx);
        return Number(result.numAffectedRows ?? 0n);
      });
      total += n;
      if (n < SWEEP_BATCH) return total;
    }
  }
}

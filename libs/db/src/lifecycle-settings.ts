import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { resolveLifecycle, type LifecycleConfig } from '@engram/memory';
import { TenantsRepository } from './repositories/tenants.repository';
import { TenantDb, type TenantTx } from './tenant-db';

const CACHE_MS = 10_000;

/** Thrown when overrides break a rule; `problems` name each path (e.g. `retention.access_cap`). */
export class LifecycleSettingsError extends Error {
  constructor(readonly problems: { path: string; message: string }[]) {
    const shown = problems.slice(0, 20);
    super(shown.map((p) => `${p.path}: ${p.message}`).join('; ') + (problems.length > shown.length ? `; and ${problems.length - shown.length} more` : ''));
    this.name = 'LifecycleSettingsError';
  }
}

/**
 * A tenant's lifecycle config: DESIGN defaults merged with the overrides kept in
 * `tenants.settings.lifecycle`. Cached per process for 10 s, so a change reaches other pods
 * within that time.
 */
@Injectable()
export class LifecycleSettings {
  private readonly cache = new Map<string, { until: number; config: LifecycleConfig }>();

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly tenantDb: TenantDb,
  ) {}

  /** The tenant's config, from the cache when fresh, else read in a transaction of its own. */
  async forTenant(tenantId: string): Promise<LifecycleConfig> {
    const hit = this.cache.get(tenantId);
    if (hit && hit.until > Date.now()) return hit.config;
    return this.tenantDb.run(tenantId, (tx) => this.get(tx));
  }

  /** The tenant's config, read inside `tx` unless cached. */
  async get(tx: TenantTx): Promise<LifecycleConfig> {
    const hit = this.cache.get(tx.tenantId);
    if (hit && hit.until > Date.now()) return hit.config;
    const result = resolveLifecycle(await this.overrides(tx));
    // Stored overrides were validated when written; defaults are the safe answer if not.
    const config = result.success ? result.data : (resolveLifecycle({}) as { data: LifecycleConfig }).data;
    this.cache.set(tx.tenantId, { until: Date.now() + CACHE_MS, config });
    return config;
  }

  async overrides(tx: TenantTx): Promise<Record<string, unknown>> {
    const settings = await this.tenants.settings(tx);
    const lifecycle = settings.lifecycle;
    return typeof lifecycle === 'object' && lifecycle !== null ? (lifecycle as Record<string, unknown>) : {};
  }

  /**
   * Replaces the tenant's overrides. When the strength parameters change, every memory's
   * `strength_days` is recomputed from its layer (keeping a synaptic boost), in one statement.
   *
   * @throws LifecycleSettingsError naming each bad path.
   */
  async replace(tx: TenantTx, overrides: Record<string, unknown>): Promise<LifecycleConfig> {
    const result = resolveLifecycle(overrides);
    if (!result.success) {
      throw new LifecycleSettingsError(
      result.error.issues.map((i) => ({
        path: i.path.join('.') || '(root)',
        // "Unrecognized keys: ..." can list thousands of hostile keys.
        message: i.message.length > 300 ? `${i.message.slice(0, 297)}...` : i.message,
      })),
    );
    }
    const before = await this.get(tx);
    await this.tenants.setSettingsSection(tx, 'lifecycle', overrides);
    const after = result.data;
    const r0 = before.retention;
    const r1 = after.retention;
    if (
      r0.base_strength_days !== r1.base_strength_days ||
      r0.coefficients.working !== r1.coefficients.working ||
      r0.coefficients.short_term !== r1.coefficients.short_term ||
      r0.coefficients.long_term !== r1.coefficients.long_term ||
      before.consolidation.synaptic_factor !== after.consolidation.synaptic_factor
    ) {
      await sql`
        update memories set strength_days = ${r1.base_strength_days}::float8
          * (case layer when 'working' then ${r1.coefficients.working}::float8
                        when 'short_term' then ${r1.coefficients.short_term}::float8
                        else ${r1.coefficients.long_term}::float8 end)
          * (case when synaptic_consolidated then ${after.consolidation.synaptic_factor}::float8 else 1 end)
        where tenant_id = ${tx.tenantId} and strength_days is not null`.execute(tx.trx);
    }
    this.cache.set(tx.tenantId, { until: Date.now() + CACHE_MS, config: after });
    return after;
  }
}

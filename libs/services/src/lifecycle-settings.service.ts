import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { MemoriesRepository, TenantDb, TenantsRepository, type TenantTx } from '@engram/db';
import { resolveLifecycle, resolveStoredLifecycle, type LifecycleConfig } from '@engram/memory';

/** How long a tenant's config is kept per process: a change reaches other pods within this time. */
const CACHE_MS = 10_000;
/** Tenants whose config one process keeps (bounded: a cache keyed by tenant must not grow with the customer base). */
const CACHE_TENANTS = 10_000;

/** Thrown when overrides break a rule; `problems` name each path (e.g. `retention.access_cap`). */
export class LifecycleSettingsError extends Error {
  constructor(readonly problems: { path: string; message: string }[]) {
    const shown = problems.slice(0, 20);
    super(shown.map((p) => `${p.path}: ${p.message}`).join('; ') + (problems.length > shown.length ? `; and ${problems.length - shown.length} more` : ''));
    this.name = 'LifecycleSettingsError';
  }
}

/** Settings an earlier version took, and what replaced them: named in the 400 a write of one gets. */
const REMOVED_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['retrieval.probes', 'is no longer a setting: the HNSW index replaced ivfflat; use retrieval.ef_search'],
]);

/**
 * `overrides` without the settings an earlier version took ({@link REMOVED_SETTINGS}): for a
 * restore of an export made before they went (docs/data-rights.md), which they would otherwise
 * refuse; a write through the API names them instead.
 */
export function withoutRemovedSettings(overrides: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(overrides);
  for (const path of REMOVED_SETTINGS.keys()) {
    const parts = path.split('.');
    const parent = parts.slice(0, -1).reduce<unknown>((at, part) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined), out);
    if (typeof parent === 'object' && parent !== null) delete (parent as Record<string, unknown>)[parts[parts.length - 1]!];
  }
  return withoutEmptySections(out);
}

/** Strength parameters changed: existing memories' strength must follow (docs/design.md §5). */
function strengthChanged(before: LifecycleConfig, after: LifecycleConfig): boolean {
  const [r0, r1] = [before.retention, after.retention];
  return (
    r0.base_strength_days !== r1.base_strength_days ||
    r0.coefficients.working !== r1.coefficients.working ||
    r0.coefficients.short_term !== r1.coefficients.short_term ||
    r0.coefficients.long_term !== r1.coefficients.long_term ||
    before.consolidation.synaptic_factor !== after.consolidation.synaptic_factor
  );
}

/**
 * A tenant's lifecycle config (docs/configuration.md): the defaults of libs/memory
 * `DEFAULT_LIFECYCLE` merged with the overrides kept in `tenants.settings.lifecycle`. Cached per
 * process for 10 s (at most 10 000 tenants, least recently used out first).
 */
@Injectable()
export class LifecycleSettings {
  private readonly cache = new LRUCache<string, LifecycleConfig>({ max: CACHE_TENANTS, ttl: CACHE_MS });

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly memories: MemoriesRepository,
    private readonly tenantDb: TenantDb,
  ) {}

  /** The tenant's config, from the cache when fresh, else read in a transaction of its own. */
  async forTenant(tenantId: string): Promise<LifecycleConfig> {
    return this.cache.get(tenantId) ?? this.tenantDb.run(tenantId, (tx) => this.get(tx));
  }

  /** The tenant's config, read inside `tx` unless cached. */
  async get(tx: TenantTx): Promise<LifecycleConfig> {
    const hit = this.cache.get(tx.tenantId);
    if (hit) return hit;
    // Stored overrides were validated when written; one a later version refuses is left out
    // (its default applies) and the others stay in force.
    const { config } = resolveStoredLifecycle(await this.overrides(tx));
    this.cache.set(tx.tenantId, config);
    return config;
  }

  /** The overrides as stored (`{}` when none). */
  async overrides(tx: TenantTx): Promise<Record<string, unknown>> {
    const lifecycle = (await this.tenants.settings(tx)).lifecycle;
    return typeof lifecycle === 'object' && lifecycle !== null ? (lifecycle as Record<string, unknown>) : {};
  }

  /**
   * Replaces the tenant's overrides (sections left empty, which override nothing, are not kept).
   * When the strength parameters change, every memory's
   * `strength_days` is recomputed from its layer (keeping a synaptic boost), in one statement.
   *
   * @throws LifecycleSettingsError naming each bad path.
   */
  async replace(tx: TenantTx, overrides: Record<string, unknown>): Promise<LifecycleConfig> {
    const result = resolveLifecycle(overrides);
    if (!result.success) {
      throw new LifecycleSettingsError(
        result.error.issues.flatMap((i) =>
          // One problem per unknown key, named by its own path (a body can hold thousands of them:
          // the error shows the first 20).
          i.code === 'unrecognized_keys'
            ? i.keys.map((key) => {
                // An empty key is named as "" (a problem always names a field).
                const path = [...i.path, key].map((part) => (part === '' ? '""' : String(part))).join('.');
                return { path, message: REMOVED_SETTINGS.get(path) ?? 'is not a setting' };
              })
            : [{ path: i.path.join('.') || '(root)', message: i.message.length > 300 ? `${i.message.slice(0, 297)}...` : i.message }],
        ),
      );
    }
    const before = await this.get(tx);
    await this.tenants.setSettingsSection(tx, 'lifecycle', withoutEmptySections(overrides));
    const after = result.data;
    if (strengthChanged(before, after)) await this.memories.rescaleStrength(tx, after.retention, after.consolidation.synaptic_factor);
    this.cache.set(tx.tenantId, after);
    return after;
  }
}

/** `overrides` without its empty objects, at any depth (an empty section overrides nothing). */
function withoutEmptySections(overrides: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(overrides)) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const inner = withoutEmptySections(v as Record<string, unknown>);
      if (Object.keys(inner).length > 0) out[k] = inner;
    } else out[k] = v;
  }
  return out;
}

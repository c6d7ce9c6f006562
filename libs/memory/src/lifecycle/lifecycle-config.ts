/**
 * Every parameter of the memory lifecycle: the schema (lifecycle-config.schema.ts) and the
 * defaults of docs/design.md §4-§5, seeds 000 and 001 (lifecycle-defaults.ts), both re-exported here. A
 * tenant may override any of them (`PUT /v1/tenant/settings/lifecycle`); the effective config is
 * the defaults deep-merged with those overrides, then validated as a whole (resolveLifecycle).
 */

import type { z } from 'zod';
import { lifecycleConfigSchema, type LifecycleConfig } from './lifecycle-config.schema';
import { DEFAULT_LIFECYCLE, STRENGTH_PRESETS } from './lifecycle-defaults';

export * from './lifecycle-config.schema';
export * from './lifecycle-defaults';

/** A tenant's overrides: any subset of the config, nested objects partial too. */
export type LifecycleOverrides = { [K in keyof LifecycleConfig]?: Partial<LifecycleConfig[K]> & Record<string, unknown> };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch === undefined ? base : patch;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(base[k], v);
  return out;
}

/**
 * The effective config for a tenant's overrides. Choosing a `retention.preset` brings that
 * preset's base strength and coefficients, unless the overrides also set those.
 *
 * @returns the config, or the zod error naming each bad path (e.g. `retention.access_cap`).
 */
export function resolveLifecycle(overrides: unknown): z.ZodSafeParseResult<LifecycleConfig> {
  let merged = deepMerge(DEFAULT_LIFECYCLE, overrides ?? {});
  const preset = (overrides as { retention?: { preset?: unknown } } | undefined)?.retention?.preset;
  if (preset === 'seed' || preset === 'calibrated') {
    const r = (overrides as { retention: Record<string, unknown> }).retention;
    merged = deepMerge(merged, {
      retention: {
        base_strength_days: r.base_strength_days ?? STRENGTH_PRESETS[preset].base_strength_days,
        coefficients: deepMerge({ ...STRENGTH_PRESETS[preset].coefficients }, r.coefficients ?? {}),
      },
    });
  }
  return lifecycleConfigSchema.safeParse(merged);
}

/**
 * Every parameter of the memory lifecycle: the schema (lifecycle-config.schema.ts) and the
 * defaults of docs/design.md §4-§5, seeds 000 and 001 (lifecycle-defaults.ts), both re-exported here. A
 * tenant may override any of them (`PUT /v1/tenant/settings/lifecycle`); the effective config is
 * the defaults deep-merged with those overrides, then validated as a whole (resolveLifecycle).
 */

import type { z } from 'zod';
import type { $ZodIssue, $ZodRawIssue } from 'zod/v4/core';
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

const article = (noun: string) => (/^[aeiou]/.test(noun) ? 'an' : 'a');
const count = (n: unknown, origin: string) => `${String(n)} ${origin === 'string' ? 'character' : 'item'}${Number(n) === 1 ? '' : 's'}`;

/**
 * The service's wording of a setting's problem (and of any request field's wrong type: the API's
 * zodProblems) where the schema gives none ("must be at most 9",
 * "must be a number", "must be one of seed, calibrated"), in place of zod's own ("Too big:
 * expected number to be <=9": a newcomer's find); undefined keeps zod's. A per-parse error map
 * (zod's `error` parameter), so a schema's own messages still win.
 */
export function settingMessage(issue: $ZodRawIssue | $ZodIssue): string | undefined {
  const inclusive = (issue as { inclusive?: boolean }).inclusive !== false;
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'number' ? `must be ${inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}` : `must have at most ${count(issue.maximum, issue.origin)}`;
    case 'too_small':
      return issue.origin === 'number' ? `must be ${inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}` : `must have at least ${count(issue.minimum, issue.origin)}`;
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'integer' : String(issue.expected);
      return `must be ${article(expected)} ${expected}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return undefined;
  }
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
  return lifecycleConfigSchema.safeParse(merged, { error: settingMessage });
}

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

/**
 * The effective config for overrides as stored, which were valid under the rules of the day they
 * were written: a setting a later version refuses (e.g. `retrieval.priority_weights.critical`
 * 1e300, bounded to 10 since 2026-12-04) is left out, and falls back to its default, while every
 * other override stays in force. A path into a list (`importance.keywords.1`) drops the whole list.
 *
 * @returns the config, and the dotted paths that were left out (empty when all were valid).
 */
export function resolveStoredLifecycle(overrides: unknown): { config: LifecycleConfig; ignored: string[] } {
  let current: unknown = overrides ?? {};
  const ignored: string[] = [];
  // Each pass removes what the last one refused; a refusal of a combination (one threshold above
  // another) names one side, so a few passes settle it; the defaults are the last resort.
  for (let pass = 0; pass < 5; pass++) {
    const result = resolveLifecycle(current);
    if (result.success) return { config: result.data, ignored };
    const next = structuredClone(current) as Record<string, unknown>;
    for (const issue of result.error.issues) {
      const cut = issue.path.findIndex((p) => typeof p === 'number');
      const path = (cut < 0 ? issue.path : issue.path.slice(0, cut)).map(String);
      if (path.length === 0) return { config: DEFAULT_LIFECYCLE, ignored: ['(all)'] };
      let parent: Record<string, unknown> | undefined = next;
      for (const key of path.slice(0, -1)) parent = typeof parent?.[key] === 'object' && parent[key] !== null ? (parent[key] as Record<string, unknown>) : undefined;
      if (parent) delete parent[path[path.length - 1] as string];
      ignored.push(path.join('.'));
    }
    current = next;
  }
  return { config: DEFAULT_LIFECYCLE, ignored: ['(all)'] };
}

import type { z } from 'zod';
import { settingMessage } from '@engram/memory';
import type { FieldProblem } from '@engram/services';

/** `items[3].tags[0]` from zod's path `['items', 3, 'tags', 0]`, prefixed with where it came from. */
function fieldName(path: readonly PropertyKey[], prefix?: string): string {
  let name = prefix ?? '';
  for (const part of path) {
    if (typeof part === 'number') name += `[${part}]`;
    else name += name ? `.${String(part)}` : String(part);
  }
  return name || prefix || 'body';
}

/** What zod says of an absent required field: a wrong type, or no value of an enum or a union. */
const ABSENT_CODES = new Set<string>(['invalid_type', 'invalid_value', 'invalid_union']);

/** The value at a zod path in an input, or undefined when any step of it is missing. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/**
 * Field problems from a zod error: unknown keys become one problem per key
 * ("unknown field, not accepted here"); a field of the wrong type or value that is absent from every one of
 * `inputs` (the request's body, query and path parameters) "is required" (a newcomer read "key:
 * must be a string" for a key they had left out); every other issue keeps zod's message or ours.
 */
export function zodProblems(error: z.ZodError, prefix?: string, inputs: readonly unknown[] = []): FieldProblem[] {
  const problems: FieldProblem[] = [];
  // Not a ZodError: the schema itself failed on this input (it never should; still a 400, not a 500).
  if (!Array.isArray((error as { issues?: unknown } | undefined)?.issues)) return [{ field: prefix ?? 'body', message: 'could not be validated' }];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ field: fieldName([...issue.path, key], prefix), message: 'is not a known field here' });
      }
    } else if (ABSENT_CODES.has(issue.code) && issue.path.length > 0 && inputs.length > 0 && inputs.every((input) => valueAt(input, issue.path) === undefined)) {
      // A schema's own wording of it ('is required: one or more tags') says more.
      problems.push({ field: fieldName(issue.path, prefix), message: issue.message.startsWith('is required') ? issue.message : 'is required' });
    } else if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
      // Zod's own wording where a schema gave none ("Invalid input: expected object, received null"):
      // ours, as the lifecycle settings word it (libs/memory `settingMessage`).
      problems.push({ field: fieldName(issue.path, prefix), message: settingMessage(issue) ?? issue.message });
    } else {
      problems.push({ field: fieldName(issue.path, prefix), message: issue.message });
    }
  }
  return problems;
}

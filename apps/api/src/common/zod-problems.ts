import type { z } from 'zod';
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

/**
 * Field problems from a zod error: unknown keys become one problem per key
 * ("unknown field, not accepted here"), every other issue keeps zod's message or ours.
 */
export function zodProblems(error: z.ZodError, prefix?: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  // Not a ZodError: the schema itself failed on this input (it never should; still a 400, not a 500).
  if (!Array.isArray((error as { issues?: unknown } | undefined)?.issues)) return [{ field: prefix ?? 'body', message: 'could not be validated' }];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ field: fieldName([...issue.path, key], prefix), message: 'is not a known field here' });
      }
    } else {
      problems.push({ field: fieldName(issue.path, prefix), message: issue.message });
    }
  }
  return problems;
}

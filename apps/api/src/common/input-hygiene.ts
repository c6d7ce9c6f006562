/** Deepest nesting accepted in a request body (objects and arrays). */
export const MAX_DEPTH = 32;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  // A lone surrogate has no UTF-8 form: it would reach PostgreSQL as U+FFFD, the text changed.
  if (!text.isWellFormed()) return 'must be valid Unicode (it contains a lone surrogate)';
  return undefined;
}

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * The first part of a parsed request (body or query) that PostgreSQL could not store, or would
 * store changed: a NUL character or a lone surrogate in any string or key, a number that is not
 * finite, a `__proto__` key (JavaScript drops it), nesting deeper than {@link MAX_DEPTH}.
 * Iterative, so hostile nesting cannot overflow the stack.
 *
 * @returns the field path (`payload.a[2]`) and the rule broken, or undefined when all is well.
 */
export function inputProblem(value: unknown, root: string): { field: string; message: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { field: path, message: problem };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { field: path, message: 'must be a finite number' };
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_DEPTH) return { field: path || 'body', message: `is nested deeper than ${MAX_DEPTH} levels` };
      // Children are pushed last-first, so the first problem found is the first in the document.
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: child(path, i), depth: depth + 1 });
      } else {
        const keys = Object.keys(v);
        for (const key of keys) {
          const keyProblem = key === '__proto__' ? 'is not allowed as a key' : textProblem(key);
          if (keyProblem) return { field: child(path, key.replace(/\u0000/g, '\\u0000')), message: keyProblem };
        }
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          stack.push({ value: (v as Record<string, unknown>)[key], path: child(path, key), depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
}

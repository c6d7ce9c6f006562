/**
 * The TypeScript client's code generation, shared by `npm run client:generate`
 * (scripts/generate-client.ts) and its drift check (test/client.test.ts), so that both turn the
 * API's OpenAPI document into exactly the same two files:
 *
 * - `clients/typescript/openapi.json`: the document, keys sorted at every level (stable whatever
 *   order decorators and modules register in), two-space indented, ending in a newline;
 * - `clients/typescript/src/schema.d.ts`: openapi-typescript's types for it.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';

export const CLIENT_DIR = join(__dirname, '..', 'clients', 'typescript');
export const OPENAPI_FILE = join(CLIENT_DIR, 'openapi.json');
export const SCHEMA_FILE = join(CLIENT_DIR, 'src', 'schema.d.ts');
export const REGENERATE = 'npm run client:generate';

/** A copy of a JSON value with the keys of every object sorted (arrays keep their order). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) sorted[key] = sortKeys(v);
    }
    return sorted;
  }
  return value;
}

/** The text of openapi.json for a document. */
export function openApiJson(document: object): string {
  return `${JSON.stringify(sortKeys(document), null, 2)}\n`;
}

const HEADER = `// Generated from ../openapi.json (the Engram API's OpenAPI document): run \`${REGENERATE}\` in the repository's root.\n`;

/**
 * The text of src/schema.d.ts for the text of openapi.json: openapi-typescript's CLI, run in a
 * child process (the package is ESM inside; jest's CommonJS cannot load it), from the client's
 * directory (so no redocly.yaml elsewhere changes the output).
 */
export function schemaTypes(openApiText: string): Promise<string> {
  const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, '--alphabetize'], { cwd: CLIENT_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(HEADER + Buffer.concat(out).toString('utf8'));
      else reject(new Error(`openapi-typescript exited with ${code}: ${Buffer.concat(err).toString('utf8')}`));
    });
    child.stdin.end(openApiText);
  });
}

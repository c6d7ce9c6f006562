import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { z } from 'zod';
import { IS_PUBLIC, USER_ROLES } from '../apps/api/src/auth/auth.decorators';
import { API_ERROR_SCHEMA_NAME } from '../apps/api/src/common/api-docs';
import { ParseIdPipe } from '../apps/api/src/common/ids';
import { zodDtoClasses } from '../apps/api/src/common/openapi-nullable';
import { buildOpenApiDocument, rawOpenApiDocument } from '../apps/api/src/create-app';
import { CLIENT_DIR } from '../scripts/client-codegen';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The OpenAPI document (`/docs-json`, the TypeScript client's source) is correct: Redocly's
 * linter finds no error in it; every nullable field is nullable (nestjs-zod #473/#474: zod ≥ 4.5
 * fields came out as arrays); every operation has a summary and declares the 4xx answers its
 * guards, parameters and body can give; and the client README's examples compile.
 */

const ROOT = join(__dirname, '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

type Json = Record<string, any>;

/** Runs a command to its end: exit code and output. */
function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Every object in a JSON value, with its JSON pointer-ish path. */
function* objects(value: unknown, path = '#'): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* objects(item, `${path}/${i}`);
  } else if (value !== null && typeof value === 'object') {
    yield [path, value as Json];
    for (const [key, child] of Object.entries(value)) yield* objects(child, `${path}/${key}`);
  }
}

function operations(document: OpenAPIObject): Array<{ where: string; path: string; operation: OperationObject }> {
  const out: Array<{ where: string; path: string; operation: OperationObject }> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) out.push({ where: `${method.toUpperCase()} ${path}`, path, operation });
    }
  }
  return out;
}

/**
 * Where a document schema disagrees with zod's own OpenAPI 3.0 rendering of the same zod schema
 * (`z.toJSONSchema(schema, {target: 'openapi-3.0'})`): nullability and type, field by field.
 */
function disagreements(expected: Json, actual: Json | undefined, path: string, out: string[]): void {
  if (actual === undefined) {
    out.push(`${path}: missing in the document`);
    return;
  }
  const composite = (s: Json) => ['$ref', 'allOf', 'anyOf', 'oneOf'].some((k) => k in s);
  if (Array.isArray(actual.type)) out.push(`${path}: type is an array (${JSON.stringify(actual.type)}), not allowed in OpenAPI 3.0`);
  if (expected.nullable === true && actual.nullable !== true) out.push(`${path}: nullable in zod, not in the document (${JSON.stringify(actual)})`);
  if (expected.nullable !== true && actual.nullable === true) out.push(`${path}: nullable in the document, not in zod`);
  if (typeof expected.type === 'string' && actual.type !== expected.type && !composite(actual)) {
    out.push(`${path}: type ${JSON.stringify(actual.type)} in the document, ${expected.type} in zod`);
  }
  if (expected.nullable === true && Array.isArray(expected.enum) && Array.isArray(actual.enum) && !actual.enum.includes(null)) {
    out.push(`${path}: a nullable enum without null among its values`);
  }
  if (composite(expected)) return;
  for (const [name, child] of Object.entries((expected.properties ?? {}) as Json)) {
    disagreements(child, actual.properties?.[name], `${path}.${name}`, out);
  }
  if (expected.items && typeof expected.items === 'object' && !Array.isArray(expected.items)) {
    disagreements(expected.items, actual.items, `${path}[]`, out);
  }
  if (expected.additionalProperties && typeof expected.additionalProperties === 'object') {
    disagreements(expected.additionalProperties, actual.additionalProperties, `${path}{}`, out);
  }
}

/** The fenced ```ts blocks of a Markdown text, in order. */
function typescriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenAPIObject;

  beforeAll(async () => {
    t = await startTestApp();
    document = buildOpenApiDocument(t.app);
  });
  afterAll(() => t.close());

  describe('nullable fields (nestjs-zod #473/#474 with zod >= 4.5)', () => {
    it('swagger reads no field of a zod DTO as an array it is not', () => {
      // The signature of the bug: nestjs-zod marks a property whose zod `type` was not one string
      // (`x-nestjs_zod-empty-type`), and swagger turned it into `type: 'array'`.
      const misread = [...objects(rawOpenApiDocument(t.app))]
        .filter(([, o]) => o['x-nestjs_zod-empty-type'] === true && (o.type === 'array' || o.schema?.type === 'array'))
        .map(([path]) => path);
      expect(misread).toEqual([]);
    });

    it('no schema of the document has a type array (OpenAPI 3.0 allows one type)', () => {
      const arrays = [...objects(document)].filter(([path, o]) => Array.isArray(o.type) && !path.endsWith('/properties')).map(([path]) => path);
      expect(arrays).toEqual([]);
    });

    it('every field of every zod DTO is as nullable, and of the type, that zod says', () => {
      const schemas = document.components?.schemas ?? {};
      const problems: string[] = [];
      let compared = 0;
      for (const dto of zodDtoClasses(t.app) as Set<Type<unknown> & { schema: z.ZodType }>) {
        const component = schemas[dto.name] as Json | undefined;
        // Query DTOs become parameters, not components: covered by the two checks above.
        if (!component) continue;
        const io = dto.name.endsWith('_Output') ? 'output' : 'input';
        const expected = z.toJSONSchema(dto.schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Json;
        disagreements(expected, component, dto.name, problems);
        compared += 1;
      }
      expect(problems).toEqual([]);
      expect(compared).toBeGreaterThan(20);
    });

    it('the fields of the issue are nullable: expires_at, next_cursor, current_retention', () => {
      const schemas = document.components?.schemas as Record<string, Json>;
      expect(schemas.UpsertMemoryDto?.properties?.expires_at).toMatchObject({ type: 'string', nullable: true });
      expect(schemas.MemoryViewDto_Output?.properties?.expires_at).toMatchObject({ type: 'string', nullable: true });
      expect(schemas.MemoryPageDto_Output?.properties?.next_cursor).toMatchObject({ type: 'string', nullable: true });
      expect(schemas.MemoryViewDto_Output?.properties?.current_retention).toMatchObject({ type: 'number', nullable: true });
    });
  });

  describe('operations', () => {
    /** Each documented operation with the route handler it documents and the guards' metadata on it. */
    function routes() {
      const byOperationId = new Map(operations(document).map((o) => [o.operation.operationId, o]));
      const found: Array<{ where: string; path: string; operation: OperationObject; isPublic: boolean; roles: unknown; parsesId: boolean }> = [];
      for (const module of t.app.get(ModulesContainer).values()) {
        for (const wrapper of module.controllers.values()) {
          const controller = wrapper.metatype as Type<unknown> | null;
          if (!controller) continue;
          const prototype = controller.prototype as Record<string, unknown>;
          for (const name of Object.getOwnPropertyNames(prototype)) {
            const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value;
            if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
            // swagger's default operationId: `<Controller>_<method>`, `_v<version>` for versioned routes.
            const id = [...byOperationId.keys()].find((k) => k === `${controller.name}_${name}` || k?.startsWith(`${controller.name}_${name}_v`));
            if (id === undefined) continue; // excluded from the document (the MCP endpoint)
            const metadata = (key: string) => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
            // A path id read through ParseIdPipe: an unknown, malformed or foreign id answers 404.
            const args = Object.values((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { pipes?: unknown[] }>);
            const parsesId = args.some((arg) => (arg.pipes ?? []).some((pipe) => pipe instanceof ParseIdPipe));
            found.push({ ...byOperationId.get(id)!, isPublic: metadata(IS_PUBLIC) === true, roles: metadata(USER_ROLES), parsesId });
            byOperationId.delete(id);
          }
        }
      }
      expect([...byOperationId.values()].map((o) => o.where)).toEqual([]); // every operation has its handler
      return found;
    }

    it('every operation has a summary (use @Documented of apps/api/src/common/api-docs.ts)', () => {
      const missing = operations(document)
        .filter((o) => typeof o.operation.summary !== 'string' || o.operation.summary.trim() === '')
        .map((o) => o.where);
      expect(missing).toEqual([]);
    });

    it("declares who may call it: public routes `security: []`, the rest the document's bearer token", () => {
      expect(document.security).toEqual([{ bearer: [] }]);
      const wrong: string[] = [];
      for (const r of routes()) {
        const security = r.operation.security;
        const anonymous = security !== undefined && (security.length === 0 || security.some((s) => Object.keys(s).length === 0));
        if (r.isPublic !== anonymous) wrong.push(`${r.where}: ${r.isPublic ? '@Public()' : 'needs a credential'} but documented security ${JSON.stringify(security ?? document.security)}`);
      }
      expect(wrong).toEqual([]);
      expect(routes().filter((r) => r.isPublic).map((r) => r.where)).toEqual(
        expect.arrayContaining(['POST /v1/auth/register', 'POST /v1/auth/login', 'GET /health/live', 'GET /health/ready', 'GET /metrics']),
      );
    });

    it('declares the 4xx answers its guards, parameters and body give, each with the error body', () => {
      const missing: string[] = [];
      for (const r of routes()) {
        const responses = r.operation.responses as Record<string, ResponseObject>;
        const need = (status: number, why: string) => {
          if (!responses[status]) missing.push(`${r.where}: ${status} (${why})`);
        };
        if (!r.isPublic) need(401, 'it needs a credential');
        if (r.roles !== undefined) need(403, '@UsersOnly');
        if (r.operation.requestBody) {
          need(400, 'it has a body');
          need(413, 'a body over BODY_LIMIT');
          need(415, 'a body of another Content-Type');
        }
        if (r.parsesId) need(404, 'an id in the path');
        if (!/^\/(health|metrics)(\/|$)/.test(r.path)) need(429, 'the rate limit');
        const takesInput = r.operation.requestBody !== undefined || (r.operation.parameters ?? []).length > 0;
        const fourXx = Object.keys(responses).filter((s) => /^4\d\d$/.test(s));
        if (fourXx.length === 0 && (takesInput || !r.isPublic)) missing.push(`${r.where}: no 4xx answer at all`);
        for (const status of fourXx) {
          const schema = responses[status]?.content?.['application/json']?.schema as Json | undefined;
          if (schema?.$ref !== `#/components/schemas/${API_ERROR_SCHEMA_NAME}`) missing.push(`${r.where}: ${status} without the ${API_ERROR_SCHEMA_NAME} body`);
        }
      }
      expect(missing).toEqual([]);
    });
  });

  it("Redocly's linter (recommended rules) finds no error", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document, null, 2));
      // From an empty directory with the recommended rules named: no redocly.yaml anywhere changes them.
      const result = await run(
        join(ROOT, 'node_modules', '.bin', 'redocly'),
        ['lint', file, '--format=json', '--extends=recommended', '--max-problems=1000'],
        { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } },
      );
      const report = JSON.parse(result.stdout) as { totals: { errors: number }; problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }> };
      const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// The TypeScript examples users copy: each document's ```ts blocks, read top to bottom as one
// program (later blocks use the clients of the first), compiled against the client's source.
const EXAMPLES = [
  { doc: join(CLIENT_DIR, 'README.md'), name: 'clients/typescript README', minBlocks: 2, types: [] as string[] },
  // The SaaS flow also verifies a webhook (standardwebhooks) and reads the key from the environment.
  { doc: join(CLIENT_DIR, '..', '..', 'docs', 'saas.md'), name: 'docs/saas.md', minBlocks: 1, types: ['node'] },
];

describe.each(EXAMPLES)('$name', ({ doc, minBlocks, types }) => {
  it('its TypeScript examples compile under tsc --strict against the client', async () => {
    const readme = await readFile(doc, 'utf8');
    const blocks = typescriptBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(minBlocks);
    const dir = await mkdtemp(join(CLIENT_DIR, '.readme-check-'));
    try {
      await writeFile(join(dir, 'readme.ts'), `${blocks.join('\n')}\nexport {};\n`);
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2023', 'DOM'],
            types,
            skipLibCheck: true,
            // What `npm install` of the package gives a user, as its source.
            paths: { '@engram/client': ['../src/index.ts'] },
          },
          files: ['readme.ts'],
        }),
      );
      const result = await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { cwd: dir });
      expect({ code: result.code, errors: result.stdout.trim() }).toEqual({ code: 0, errors: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

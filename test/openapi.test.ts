import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject } from '@nestjs/swagger';
import { z } from 'zod';
import { IS_PUBLIC, USER_ROLES } from '../apps/api/src/auth/auth.decorators';
import { API_ERROR_SCHEMA_NAME } from '../apps/api/src/common/api-docs';
import { ParseIdPipe } from '../apps/api/src/common/ids';
import { zodDtoClasses } from '../apps/api/src/common/openapi-nullable';
import { buildOpenApiDocument, rawOpenApiDocument } from '../apps/api/src/create-app';
import { QUERY_PARAMETERS } from '../apps/api/src/common/logged-url';
import { CONVERSATION_ID_PATTERN } from '../apps/api/src/conversations/conversations.dto';
import { externalId } from '../apps/api/src/minds/minds.dto';
import { CLIENT_DIR } from '../scripts/client-codegen';
import { endpointsOf } from './support/openapi-endpoints';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The OpenAPI document (`/docs-json`, the TypeScript client's source) is correct: Redocly's
 * linter finds no error in it; every nullable field is nullable (nestjs-zod #473/#474: zod ≥ 4.5
 * fields came out as arrays); every operation has a summary and declares the 4xx answers its
 * guards, parameters and body can give, the 2xx statuses it answers, each JSON answer with its
 * schema (else the client types it `never`), its path parameters' limits and whether its body
 * is required; and the client README's examples, and a typed read of each answer, compile.
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
      const found: Array<{
        where: string;
        path: string;
        operation: OperationObject;
        isPublic: boolean;
        roles: unknown;
        parsesId: boolean;
        /** The path parameters read through ParseIdPipe (404 for a malformed id, no length rule). */
        idParams: string[];
        /** The status the handler answers unless it sets one itself: `@HttpCode`, else Nest's default (201 for POST, 200 otherwise). */
        status: number;
        /** The zod DTO of its `@Body()`, if it has one. */
        bodyDto: (Type<unknown> & { schema?: z.ZodType }) | undefined;
      }> = [];
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
            const argsByKey = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;
            const args = Object.values(argsByKey);
            const isId = (arg: { pipes?: unknown[] }) => (arg.pipes ?? []).some((pipe) => pipe instanceof ParseIdPipe);
            const parsesId = args.some(isId);
            const idParams = Object.entries(argsByKey)
              .filter(([key, arg]) => key.startsWith(`${RouteParamtypes.PARAM}:`) && isId(arg) && typeof arg.data === 'string')
              .map(([, arg]) => arg.data as string);
            const bodyArg = Object.entries(argsByKey).find(([key]) => key.startsWith(`${RouteParamtypes.BODY}:`))?.[1];
            const paramTypes = (Reflect.getMetadata('design:paramtypes', prototype, name) ?? []) as unknown[];
            const bodyType = bodyArg ? (paramTypes[bodyArg.index] as (Type<unknown> & { schema?: z.ZodType }) | undefined) : undefined;
            const bodyDto = bodyType && 'schema' in bodyType ? bodyType : undefined;
            const status = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.POST ? 201 : 200);
            found.push({ ...byOperationId.get(id)!, isPublic: metadata(IS_PUBLIC) === true, roles: metadata(USER_ROLES), parsesId, idParams, status, bodyDto });
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

    it('declares a 2xx answer, and a schema for each 2xx body (else the client types the answer `never`)', () => {
      const wrong: string[] = [];
      for (const o of operations(document)) {
        const success = Object.entries(o.operation.responses as Record<string, ResponseObject>).filter(([status]) => /^2\d\d$/.test(status));
        if (success.length === 0) wrong.push(`${o.where}: no 2xx answer`);
        for (const [status, response] of success) {
          const content = Object.entries(response.content ?? {});
          if (status === '204') {
            if (content.length > 0) wrong.push(`${o.where}: 204 with a body`);
            continue;
          }
          if (content.length === 0) wrong.push(`${o.where}: ${status} without content (the client types it never)`);
          for (const [media, body] of content) {
            const schema = body.schema as Json | undefined;
            if (!schema || Object.keys(schema).length === 0) wrong.push(`${o.where}: ${status} ${media} without a schema`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });

    it('types every JSON request body: no bare `{type: object}` (the client types it Record<string, never>)', () => {
      const bare = operations(document)
        .filter((o) => {
          const schema = (o.operation.requestBody as { content?: Json } | undefined)?.content?.['application/json']?.schema as Json | undefined;
          return schema?.type === 'object' && schema.properties === undefined && schema.additionalProperties === undefined;
        })
        .map((o) => o.where);
      expect(bare).toEqual([]);
    });

    it('declares the status each handler answers, and both where it answers 200 or 201', () => {
      const wrong: string[] = [];
      const rs = routes();
      for (const r of rs) {
        if (!r.operation.responses[r.status]) wrong.push(`${r.where}: answers ${r.status}, declares ${Object.keys(r.operation.responses).filter((s) => /^2/.test(s)).join(', ') || 'no 2xx'}`);
        if (/^DELETE /.test(r.where) && r.status === 204 && !r.operation.responses[204]) wrong.push(`${r.where}: its 204`);
      }
      // The upserts set the status themselves (res.status): created 201, existing 200.
      for (const where of ['POST /v1/memory', 'PUT /v1/minds/by-external-id/{externalId}']) {
        const r = rs.find((x) => x.where === where);
        if (!r) wrong.push(`${where}: not documented`);
        else for (const status of [200, 201]) if (!r.operation.responses[status]) wrong.push(`${where}: ${status}`);
      }
      expect(wrong).toEqual([]);
      expect(rs.find((r) => r.where === 'POST /v1/conversations/{conversationId}/messages')?.status).toBe(201);
    });

    it('states the limits of every path parameter that is not an id, as its validator has them', () => {
      const wrong: string[] = [];
      for (const r of routes()) {
        for (const p of (r.operation.parameters ?? []) as ParameterObject[]) {
          if (p.in !== 'path' || r.idParams.includes(p.name)) continue;
          const schema = (p.schema ?? {}) as Json;
          if (typeof schema.maxLength !== 'number' || typeof schema.minLength !== 'number') wrong.push(`${r.where}: {${p.name}} without minLength and maxLength`);
        }
      }
      expect(wrong).toEqual([]);
      const param = (where: string, name: string) => {
        const o = operations(document).find((x) => x.where === where);
        return ((o?.operation.parameters ?? []) as ParameterObject[]).find((p) => p.name === name)?.schema as Json | undefined;
      };
      // The longest value the validator takes is maxLength; one more character fails.
      const ext = param('PUT /v1/minds/by-external-id/{externalId}', 'externalId');
      expect(ext).toMatchObject({ type: 'string', minLength: 1 });
      expect(externalId.safeParse('x'.repeat(ext!.maxLength)).success).toBe(true);
      expect(externalId.safeParse('x'.repeat(ext!.maxLength + 1)).success).toBe(false);
      expect(externalId.safeParse('').success).toBe(false);
      const conv = param('GET /v1/conversations/{conversationId}/stm', 'conversationId');
      expect(conv).toMatchObject({ type: 'string', minLength: 1, pattern: CONVERSATION_ID_PATTERN.source });
      expect(CONVERSATION_ID_PATTERN.test('x'.repeat(conv!.maxLength))).toBe(true);
      expect(CONVERSATION_ID_PATTERN.test('x'.repeat(conv!.maxLength + 1))).toBe(false);
    });

    it('marks a body optional exactly when the route takes none (a missing JSON body is validated as {})', () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const r of routes()) {
        const body = r.operation.requestBody as { required?: boolean; content?: Json } | undefined;
        if (!r.bodyDto?.schema || !body?.content?.['application/json']) continue;
        checked += 1;
        const optional = r.bodyDto.schema.safeParse({}).success;
        if (optional !== (body.required !== true)) wrong.push(`${r.where}: ${optional ? 'takes no body but the document requires one' : 'needs a body but the document makes it optional'}`);
      }
      expect(wrong).toEqual([]);
      expect(checked).toBeGreaterThan(5);
    });
  });

  // The log lines name a query parameter only if it is one of the API's (logged-url.ts).
  it('the logs know every query parameter the API takes', () => {
    const names = new Set(endpointsOf(document).flatMap((e) => e.queryParams.map((p) => p.name)));
    expect([...names].sort()).toEqual([...QUERY_PARAMETERS].sort());
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
    expect(await compileAgainstClient(`${blocks.join('\n')}\nexport {};\n`, types)).toEqual({ code: 0, errors: '' });
  });
});

/** Compiles one TypeScript file under tsc --strict against the client's source: exit code and errors. */
async function compileAgainstClient(source: string, types: string[] = []): Promise<{ code: number | null; errors: string }> {
  const dir = await mkdtemp(join(CLIENT_DIR, '.readme-check-'));
  try {
    await writeFile(join(dir, 'readme.ts'), source);
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
    return { code: result.code, errors: result.stdout.trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the TypeScript client', () => {
  it("types every operation's JSON answer (not never, unknown or undefined)", async () => {
    // The committed document, which src/schema.d.ts is generated from (test/client.test.ts keeps them equal).
    const committed = JSON.parse(await readFile(join(CLIENT_DIR, 'openapi.json'), 'utf8')) as OpenAPIObject;
    const checks: string[] = [];
    for (const o of operations(committed)) {
      const json = Object.entries(o.operation.responses as Record<string, ResponseObject>).some(([status, r]) => /^2\d\d$/.test(status) && r.content?.['application/json']);
      const method = o.where.split(' ')[0]!.toLowerCase();
      // An operation without a JSON answer is typed `never` for JSON: then it must have a 2xx of another kind (204, text).
      if (json) checks.push(`typed<SuccessResponseJSON<paths[${JSON.stringify(o.path)}][${JSON.stringify(method)}]>>(${JSON.stringify(o.where)});`);
    }
    expect(checks.length).toBeGreaterThan(30);
    const source = [
      "import type { paths } from '@engram/client';",
      "import type { SuccessResponseJSON } from 'openapi-typescript-helpers';",
      'type IsNever<T> = [T] extends [never] ? true : false;',
      'type IsUnknown<T> = unknown extends T ? true : false;',
      '/** Compiles only when T is a real type: the error names the operation. */',
      'type IsEmpty<T> = [T] extends [undefined | null | void] ? true : false;',
      'declare function typed<T>(where: IsNever<T> extends true ? "answer typed never" : IsUnknown<T> extends true ? "answer typed unknown" : IsEmpty<T> extends true ? "answer typed undefined" : string): void;',
      ...checks,
      'export {};',
      '',
    ].join('\n');
    expect(await compileAgainstClient(source)).toEqual({ code: 0, errors: '' });
  });

  it('reads the conversation, retention and lifecycle answers with their field types', async () => {
    const source = `
import { createEngramClient } from '@engram/client';

const agent = createEngramClient({ baseUrl: 'http://localhost:3000', mindKey: 'emk_example' });
const path = { conversationId: 'chat-1' };
const { data: appended } = await agent.POST('/v1/conversations/{conversationId}/messages', { params: { path }, body: { messages: [{ role: 'user', content: 'I moved to Berlin' }] } });
const stmSize: number = appended!.stm_size;
const consolidatedKeys: string[] = appended!.consolidated.map((c) => c.key);
const { data: stm } = await agent.GET('/v1/conversations/{conversationId}/stm', { params: { path } });
const capacity: number = stm!.capacity;
const decision: 'stay' | 'consolidate' | 'discard' | undefined = stm!.entries[0]?.decision_now;
const { data: saved } = await agent.POST('/v1/conversations/{conversationId}/consolidate', { params: { path } });
const savedIds: string[] = saved!.consolidated.map((c) => c.memory_id);
const { data: card } = await agent.GET('/v1/memory/{id}/retention', { params: { path: { id: '0190f0e0-0000-7000-8000-000000000000' } } });
const layer: 'working' | 'short_term' | 'long_term' = card!.layer;
const forecast: number[] = card!.forecast.map((p) => p.retention);

const user = createEngramClient({ baseUrl: 'http://localhost:3000', token: 'a.jwt' });
const { data: settings } = await user.GET('/v1/tenant/settings/lifecycle');
const soft: number = settings!.effective.forgetting.soft_threshold;
const { data: patched } = await user.PATCH('/v1/tenant/settings/lifecycle', { body: { forgetting: { soft_threshold: 0.25 } } });
const overrides: Record<string, unknown> = patched!.overrides;
// A bodyless PUT and POST: their bodies are optional.
const { data: mind } = await user.PUT('/v1/minds/by-external-id/{externalId}', { params: { path: { externalId: 'user-42' } } });
const { data: key } = await user.POST('/v1/minds/{id}/keys', { params: { path: { id: mind!.id } } });
const secret: string = key!.key;
const { data: jsonl } = await user.GET('/v1/tenant/export', { parseAs: 'text' });
const text: string = jsonl!;

// @ts-expect-error no such field: the answers are typed, not any
void appended!.no_such_field;

export { stmSize, consolidatedKeys, capacity, decision, savedIds, layer, forecast, soft, overrides, secret, text };
`;
    expect(await compileAgainstClient(source)).toEqual({ code: 0, errors: '' });
  });
});

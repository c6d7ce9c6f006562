import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { buildOpenApiDocument } from '../apps/api/src/create-app';
import { createEngramClient, type ApiError, type Memory, type SearchHit } from '../clients/typescript/src';
import { OPENAPI_FILE, REGENERATE, SCHEMA_FILE, openApiJson, schemaTypes } from '../scripts/client-codegen';
import { startTestApp, type TestApp } from './support/test-app';

/** What changed between two documents, by operation and by component schema: a readable failure. */
function documentDrift(committed: Record<string, any>, current: Record<string, any>): string[] {
  const changes: string[] = [];
  const compare = (what: string, a: Record<string, unknown> = {}, b: Record<string, unknown> = {}) => {
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(name in b)) changes.push(`${what} ${name}: only in the committed client`);
      else if (!(name in a)) changes.push(`${what} ${name}: new in the API`);
      else if (!isDeepStrictEqual(a[name], b[name])) changes.push(`${what} ${name}: changed`);
    }
  };
  for (const path of new Set([...Object.keys(committed.paths ?? {}), ...Object.keys(current.paths ?? {})])) {
    compare(`operation ${path}`, committed.paths?.[path], current.paths?.[path]);
  }
  compare('schema', committed.components?.schemas, current.components?.schemas);
  const rest = (d: Record<string, unknown>) => ({ ...d, paths: undefined, components: { ...(d.components as object), schemas: undefined } });
  if (!isDeepStrictEqual(rest(committed), rest(current))) changes.push('document: info, security or other top-level fields changed');
  return changes;
}

describe('TypeScript client (clients/typescript)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  describe('matches the API (fails when they drift apart)', () => {
    let current: string;
    beforeAll(() => {
      current = openApiJson(buildOpenApiDocument(t.app));
    });

    it('openapi.json is the document the API serves', async () => {
      const committed = await readFile(OPENAPI_FILE, 'utf8');
      if (committed !== current) {
        const drift = documentDrift(JSON.parse(committed), JSON.parse(current));
        throw new Error(
          `clients/typescript/openapi.json is not the API's OpenAPI document: run \`${REGENERATE}\` and commit the result.\n` +
            (drift.length > 0 ? drift.map((d) => `  - ${d}`).join('\n') : '  - same content, other formatting or key order'),
        );
      }
      // And it is what /docs-json serves.
      const served = await fetch(`${baseUrl}/docs-json`);
      expect(served.status).toBe(200);
      expect(await served.json()).toEqual(JSON.parse(current));
    });

    it('src/schema.d.ts is what openapi-typescript makes of it', async () => {
      const committed = await readFile(SCHEMA_FILE, 'utf8');
      if (committed !== (await schemaTypes(current))) {
        throw new Error(`clients/typescript/src/schema.d.ts is not generated from the API's document: run \`${REGENERATE}\` and commit the result.`);
      }
    });
  });

  describe('against the running API (real HTTP)', () => {
    it('register, create a mind and a key, remember, search, recall, and typed errors', async () => {
      const anonymous = createEngramClient({ baseUrl });
      const email = `client-${Date.now()}@example.test`;
      const registered = await anonymous.POST('/v1/auth/register', {
        body: { email, password: 'correct horse battery', tenant_name: 'Client Co' },
      });
      expect(registered.response.status).toBe(201);
      const login = await anonymous.POST('/v1/auth/login', { body: { email, password: 'correct horse battery' } });
      if (!login.data) throw new Error(`login failed: ${JSON.stringify(login.error)}`);
      const token: string = login.data.token;

      // A person (JWT): a mind and a Mind Key for it.
      const user = createEngramClient({ baseUrl, token });
      const mind = await user.POST('/v1/minds', { body: { name: 'Client Mind' } });
      if (!mind.data) throw new Error(`creating the mind failed: ${JSON.stringify(mind.error)}`);
      const mindId: string = mind.data.id;
      const key = await user.POST('/v1/minds/{id}/keys', { params: { path: { id: mindId } }, body: { name: 'agent' } });
      if (!key.data) throw new Error(`creating the key failed: ${JSON.stringify(key.error)}`);
      expect(key.response.status).toBe(201);
      expect(key.data.key).toMatch(/^emk_/);

      // The agent (Mind Key) remembers.
      const agent = createEngramClient({ baseUrl, mindKey: key.data.key });
      const stored = await agent.POST('/v1/memory', {
        body: {
          category: 'project',
          key: 'synapse_status',
          content: 'v1.5.0 deployed, working on the v1.6.0 docs',
          tags: ['synapse', 'deployment'],
          priority: 'high',
        },
      });
      expect(stored.response.status).toBe(201);
      const memory: Memory | undefined = stored.data;
      expect(memory).toMatchObject({ category: 'project', key: 'synapse_status', source: 'agent', verified: false, mind_id: mindId });
      // @ts-expect-error the category is one of the API's categories, checked at compile time
      const wrongCategory = () => agent.POST('/v1/memory', { body: { category: 'gossip', key: 'k', content: 'c' } });
      expect(typeof wrongCategory).toBe('function');

      // ...and a person stores on the same mind, naming it with X-Mind-Id.
      const person = createEngramClient({ baseUrl, token, mindId });
      const byPerson = await person.POST('/v1/memory', {
        body: { category: 'identity', key: 'user_name', content: 'Michael Schäfer', priority: 'critical' },
      });
      expect(byPerson.data).toMatchObject({ source: 'user', verified: true });

      // Search: the hits are typed.
      const search = await agent.GET('/v1/memory/search', { params: { query: { q: 'deployed docs', limit: 5, category: 'project', explain: false } } });
      // Query parameters are typed too: a limit is a number, a category one of the categories.
      // @ts-expect-error limit is an integer
      const mistyped = () => agent.GET('/v1/memory/search', { params: { query: { q: 'x', limit: 'five' } } });
      expect(typeof mistyped).toBe('function');
      if (!search.data) throw new Error(`search failed: ${JSON.stringify(search.error)}`);
      const hit: SearchHit | undefined = search.data.items[0];
      const content: string | undefined = search.data.items[0]?.content;
      expect(hit?.key).toBe('synapse_status');
      expect(content).toBe('v1.5.0 deployed, working on the v1.6.0 docs');
      // @ts-expect-error content is a string
      const notANumber: number | undefined = search.data.items[0]?.content;
      expect(notANumber).toBe(content);

      // Recall: plain text for the LLM's context.
      const recall = await agent.GET('/v1/memory/recall', { parseAs: 'text' });
      expect(recall.response.status).toBe(200);
      const text: string | undefined = recall.data;
      expect(text).toContain('Mind: Client Mind');
      expect(text).toContain('[001] identity (CRITICAL) [verified]');
      expect(text).toContain('v1.5.0 deployed, working on the v1.6.0 docs');

      // An unknown id: 404, the error body typed.
      const missing = await agent.GET('/v1/memory/{id}', { params: { path: { id: randomUUID() } } });
      expect(missing.data).toBeUndefined();
      expect(missing.response.status).toBe(404);
      const notFound: ApiError | undefined = missing.error;
      expect(notFound).toMatchObject({ statusCode: 404, error: 'Not Found', message: expect.any(String), requestId: expect.any(String) });

      // A bad field: 400 naming it.
      const bad = await agent.POST('/v1/memory', { body: { category: 'fact', key: 'Not Snake Case', content: 'x' } });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.statusCode).toBe(400);
      expect(bad.error?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'key', message: expect.any(String) })]));

      // No credential: 401 in the same shape.
      const unauthenticated = await anonymous.GET('/v1/memory', {});
      expect(unauthenticated.error).toMatchObject({ statusCode: 401 });
    });

    it('refuses two credentials together', () => {
      expect(() => createEngramClient({ baseUrl, mindKey: 'emk_x', token: 'jwt' })).toThrow(TypeError);
      expect(() => createEngramClient({ baseUrl, serviceKey: 'esk_x', token: 'jwt' })).toThrow(TypeError);
    });

    it('a SaaS backend: service key, a mind per end user by external id, remember and search on it', async () => {
      const owner = createEngramClient({ baseUrl });
      const reg = await owner.POST('/v1/auth/register', { body: { email: `saas-${randomUUID()}@example.test`, password: 'correct horse battery', tenant_name: 'SaaS' } });
      const admin = createEngramClient({ baseUrl, token: reg.data!.token });
      const issued = await admin.POST('/v1/service-keys', { body: { name: 'backend', scopes: ['minds:manage', 'memories:read', 'memories:write'] } });
      expect(issued.response.status).toBe(201);
      const backend = createEngramClient({ baseUrl, serviceKey: issued.data!.key });
      const mind = await backend.PUT('/v1/minds/by-external-id/{externalId}', { params: { path: { externalId: 'user-123' } }, body: {} });
      expect(mind.response.status).toBe(201);
      expect(mind.data?.external_id).toBe('user-123');
      const forUser = createEngramClient({ baseUrl, serviceKey: issued.data!.key, mindId: mind.data!.id });
      const written = await forUser.POST('/v1/memory', { body: { category: 'preference', key: 'user_diet', content: 'The user is vegetarian' } });
      expect(written.data).toMatchObject({ source: 'agent', verified: false });
      const hits = await forUser.GET('/v1/memory/search', { params: { query: { q: 'vegetarian' } } });
      expect(hits.data?.items[0]?.id).toBe(written.data!.id);
    });
  });
});

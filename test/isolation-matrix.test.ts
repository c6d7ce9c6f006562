import type { Response } from 'supertest';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { listRoutes, type Route } from './support/routes';

// Issue 8, item 1: an isolation matrix generated from the application's route table (Express's
// router, read at run time by test/support/routes.ts), so a new endpoint is covered without
// anyone remembering to add it here. Every route is either declared public below (with the
// reason) or is called with every foreign credential; a route with a path parameter whose kind
// this file does not know fails the suite until someone says which record the parameter names.

const MISSING_UUID = '01a22895-c86e-7310-8c55-f345f5cdfafa';
const MISSING_CONVERSATION = 'never-used-conversation-4b1d';

/** Routes that need no credential, and why they are outside the matrix. */
const PUBLIC_ROUTES: Record<string, string> = {
  'post /v1/auth/register': 'anyone may create a tenant; it reads no tenant data',
  'post /v1/auth/login': 'anyone may exchange e-mail and password; answers one 401 for every mismatch',
  'get /health/live': 'liveness probe: no tenant data',
  'get /health/ready': 'readiness probe: checks the database, no tenant data',
  'get /metrics': "the service's Prometheus metrics, not a tenant's (guarded by METRICS_TOKEN when set)",
};
/** Router-table entries that are not endpoints of the API, by pattern, and why. */
const PUBLIC_PATTERNS: Array<[RegExp, string]> = [
  [/^\/docs(\/|-json$|-yaml$|$)/, 'the OpenAPI UI and document (OPENAPI_ENABLED): the description of the API, no tenant data'],
  [/\{\*path\}/, "Nest's registration of middleware for every path (HttpMetricsMiddleware, JsonBodyMiddleware): not an endpoint, answers 404 after the middleware"],
];
// /admin (operator dashboard) and /inspector (static UI) are Express routers mounted with app.use,
// not routes of the router table; they have their own auth (OperatorAuth) and tests.

type Kind = 'memory' | 'mind' | 'key' | 'conversation';

/** Which record a path parameter names; undefined when this file does not know it yet. */
function paramKind(path: string, param: string): Kind | undefined {
  if (param === 'keyId') return 'key';
  if (param === 'conversationId') return 'conversation';
  if (param === 'id' && path.startsWith('/v1/minds/')) return 'mind';
  if (param === 'id' && path.startsWith('/v1/memory/')) return 'memory';
  return undefined;
}

const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
const label = (r: Route) => `${r.method} ${r.path}`;

interface Credential {
  name: string;
  headers: () => Record<string, string>;
  /** Whether the credential is used on a route naming these kinds of records. */
  applies: (kinds: Kind[]) => boolean;
  /**
   * The credential acts on a mind of its own: a conversation id is a name chosen per mind, so
   * naming A's conversation there reaches the caller's own (empty) conversation, a 2xx that must
   * hold none of A's messages.
   */
  ownMind: boolean;
}

describe('isolation matrix: every route of the router table, called with foreign credentials', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let a2 = { mindId: '', key: '' };
  let revokedKey = '';
  let deletedMindKey = '';
  let memoryA = '';
  let historyMemoryA = '';
  const conversationA = 'alice-board-meeting-7f3e';
  const SECRET = 'ALICE-SECRET-quartz-pelican-9931';
  const CONVO_SECRET = 'ALICE-CONVO-SECRET-merger-with-globex';
  let routes: Route[] = [];
  let cases = 0;
  let foreignCases = 0;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t, 'alice');
    b = await createTenant(t, 'bob');
    const owner = { Authorization: `Bearer ${a.token}` };
    memoryA = (await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'secret', content: SECRET, tags: ['alicetag'] }).expect(201)).body.id;
    historyMemoryA = (await t.http().post('/v1/memory').set(asUser(a)).send({ category: 'project', key: 'plan', content: `${SECRET} v1`, tags: ['alicetag'] }).expect(201)).body.id;
    await t.http().post('/v1/memory').set(asUser(a)).send({ category: 'project', key: 'plan', content: `${SECRET} v2` }).expect(200);
    await t.http().post(`/v1/conversations/${conversationA}/messages`).set(asAgent(a)).send({ messages: [{ content: CONVO_SECRET, speaker: 'alice' }] }).expect(201);
    await t.http().post('/v1/memory').set(asAgent(b)).send({ category: 'fact', key: 'secret', content: 'Bob own note', tags: ['alicetag'] }).expect(201);

    // A2: another mind of the same tenant, with its own key.
    const mindA2 = await t.http().post('/v1/minds').set(owner).send({ name: 'alice second mind' }).expect(201);
    a2 = { mindId: mindA2.body.id, key: (await t.http().post(`/v1/minds/${mindA2.body.id}/keys`).set(owner).send({}).expect(201)).body.key };

    // A revoked key of A's mind.
    const revoked = await t.http().post(`/v1/minds/${a.mindId}/keys`).set(owner).send({ name: 'to revoke' }).expect(201);
    revokedKey = revoked.body.key;
    await t.http().get('/v1/memory').set({ Authorization: `Bearer ${revokedKey}` }).expect(200);
    await t.http().delete(`/v1/minds/${a.mindId}/keys/${revoked.body.id}`).set(owner).expect((r) => expect(r.status).toBeLessThan(300));

    // The key of a mind that was deleted afterwards.
    const doomed = await t.http().post('/v1/minds').set(owner).send({ name: 'alice doomed mind' }).expect(201);
    deletedMindKey = (await t.http().post(`/v1/minds/${doomed.body.id}/keys`).set(owner).send({}).expect(201)).body.key;
    await t.http().get('/v1/memory').set({ Authorization: `Bearer ${deletedMindKey}` }).expect(200);
    await t.http().delete(`/v1/minds/${doomed.body.id}`).set(owner).expect((r) => expect(r.status).toBeLessThan(300));

    routes = listRoutes(t.app);
  });
  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`isolation matrix: ${routes.length} router entries (${paramRoutes().length} with ids, ${plainRoutes().length} without, ${routes.filter(isPublic).length} public), ${cases} route x credential calls, of which ${foreignCases} foreign-credential x foreign-id cases`);
    await t?.close();
  });

  // Reads that are not accesses: A's data as A sees it, before and after the matrix.
  const snapshotA = async () => ({
    memories: (await t.http().get('/v1/memory').query({ include_expired: 'true' }).set(asUser(a)).expect(200)).body,
    history: (await t.http().get(`/v1/memory/${historyMemoryA}/history`).set(asUser(a)).expect(200)).body,
    minds: (await t.http().get('/v1/minds').set({ Authorization: `Bearer ${a.token}` }).expect(200)).body,
    keys: (await t.http().get(`/v1/minds/${a.mindId}/keys`).set({ Authorization: `Bearer ${a.token}` }).expect(200)).body,
    stm: (await t.http().get(`/v1/conversations/${conversationA}/stm`).set(asUser(a)).expect(200)).body.entries.map((e: { content?: string }) => e.content),
  });

  /** What must never appear in an answer to anyone outside A's mind. */
  const secretsOfA = () => [SECRET, CONVO_SECRET, memoryA, historyMemoryA];
  /** Tenant-level facts of A that must never reach tenant B. */
  const tenantFactsOfA = () => [a.mindId, a.mindKeyId, a.tenantId, a.userId, a.email, a2.mindId];

  const idsOf = (kind: Kind, foreign: boolean): string => {
    if (!foreign) return kind === 'conversation' ? MISSING_CONVERSATION : MISSING_UUID;
    return { memory: memoryA, mind: a.mindId, key: a.mindKeyId, conversation: conversationA }[kind];
  };

  const fill = (route: Route, foreign: boolean) => route.path.replace(/:(\w+)/g, (_m, p: string) => idsOf(paramKind(route.path, p)!, foreign));

  /** A body the route accepts, so validation (400) cannot hide what the route would do. */
  const bodyFor = (route: Route): object | undefined => {
    if (route.method === 'get' || route.method === 'delete') return undefined;
    if (route.path.endsWith('/messages')) return { messages: [{ content: 'probe from outside A' }] };
    if (route.method === 'put' && route.path.startsWith('/v1/memory/')) return { content: 'overwritten from outside A' };
    if (route.path.endsWith('/keys')) return { name: 'planted key' };
    return {};
  };

  const queryFor = (route: Route): Record<string, string> | undefined => {
    if (route.path === '/v1/memory/search') return { q: 'ALICE secret quartz pelican' };
    if (route.path === '/v1/memory/by-tag') return { tag: 'alicetag' };
    if (route.path === '/v1/memory') return { include_expired: 'true' };
    if (route.path === '/v1/minds') return { name: 'alice second mind' };
    return undefined;
  };

  const call = (route: Route, path: string, headers: Record<string, string>): Promise<Response> => {
    cases += 1;
    let req = t.http()[route.method](path).set(headers);
    const query = queryFor(route);
    if (query) req = req.query(query);
    const body = bodyFor(route);
    return body === undefined ? req : req.send(body);
  };

  const textOf = (res: Response) => res.text ?? JSON.stringify(res.body ?? null);

  /** The answer with what differs between two calls of the same route (request id, the id named) blanked. */
  const normalised = (res: Response, id: string) => {
    const { requestId: _ignored, ...rest } = (res.body ?? {}) as Record<string, unknown>;
    return { status: res.status, body: JSON.parse(JSON.stringify(rest).split(id).join('<ID>')) as unknown };
  };

  const credentials = (): Credential[] => [
    { name: "B's JWT, X-Mind-Id of B's mind", headers: () => asUser(b), applies: () => true, ownMind: true },
    { name: "B's Mind Key", headers: () => asAgent(b), applies: () => true, ownMind: true },
    { name: "B's JWT, X-Mind-Id of A's mind", headers: () => asUser(b, a.mindId), applies: () => true, ownMind: false },
    { name: "A2's Mind Key (same tenant, other mind)", headers: () => ({ Authorization: `Bearer ${a2.key}` }), applies: () => true, ownMind: true },
    // A's owner may manage A's minds and keys: only the mind-scoped routes are foreign to it here.
    {
      name: "A's JWT, X-Mind-Id of A2's mind",
      headers: () => asUser(a, a2.mindId),
      applies: (kinds) => !kinds.includes('mind') && !kinds.includes('key'),
      ownMind: true,
    },
  ];

  const isPublic = (r: Route) => label(r) in PUBLIC_ROUTES || PUBLIC_PATTERNS.some(([re]) => re.test(r.path));
  const paramRoutes = () => routes.filter((r) => !isPublic(r) && r.path.includes(':'));
  const plainRoutes = () => routes.filter((r) => !isPublic(r) && !r.path.includes(':'));

  it('enumerates a non-trivial route table, and every path parameter is one this matrix knows', () => {
    const labels = routes.map(label);
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(labels).toEqual(expect.arrayContaining(['get /v1/memory/:id', 'put /v1/memory/:id', 'delete /v1/minds/:id/keys/:keyId', 'post /v1/conversations/:conversationId/messages', 'get /v1/memory/search', 'post /mcp']));
    // The public list names real routes (it cannot silently excuse a route that was renamed).
    expect(Object.keys(PUBLIC_ROUTES).filter((l) => !labels.includes(l))).toEqual([]);
    const unknown = paramRoutes().flatMap((r) => paramsOf(r.path).filter((p) => !paramKind(r.path, p)).map((p) => `${label(r)} :${p}`));
    expect(unknown).toEqual([]);
    expect(paramRoutes().length).toBeGreaterThanOrEqual(12);
    expect(plainRoutes().length).toBeGreaterThanOrEqual(12);
  });

  it('the public routes answer without credentials and hold none of A\'s data', async () => {
    for (const route of routes.filter(isPublic)) {
      if (route.method !== 'get') continue; // register and login create or check accounts: test/auth.test.ts
      const res = await call(route, route.path.replace('{*path}', 'no-such-path'), {});
      expect(res.status).toBeLessThan(500);
      for (const secret of [SECRET, CONVO_SECRET, memoryA, a.mindId]) expect(textOf(res)).not.toContain(secret);
    }
  });

  it('every route that is not declared public answers 401 without credentials', async () => {
    const answers: Array<[string, number]> = [];
    for (const route of [...paramRoutes(), ...plainRoutes()]) {
      const res = await call(route, fill(route, true), {});
      answers.push([label(route), res.status]);
      expect(textOf(res)).not.toContain(SECRET);
    }
    expect(answers.filter(([, status]) => status !== 401)).toEqual([]);
  });

  it("foreign credentials on A's ids: 401/403/404 like a missing id, never A's data, A unchanged", async () => {
    const before = await snapshotA();
    const failures: string[] = [];
    for (const cred of credentials()) {
      for (const route of paramRoutes()) {
        const kinds = paramsOf(route.path).map((p) => paramKind(route.path, p)!);
        if (!cred.applies(kinds)) continue;
        const where = `${label(route)} as ${cred.name}`;
        foreignCases += 1;
        const got = await call(route, fill(route, true), cred.headers());
        const text = textOf(got);
        for (const secret of secretsOfA()) if (text.includes(secret)) failures.push(`${where}: answer contains A's ${secret}`);
        if (cred.name.startsWith("B's")) {
          for (const fact of tenantFactsOfA()) {
            // The id B named itself may be echoed back; any other id of A may not.
            if (text.includes(fact) && !fill(route, true).includes(fact) && !Object.values(cred.headers()).includes(fact)) failures.push(`${where}: answer contains A's ${fact}`);
          }
        }
        const conversational = kinds.includes('conversation') && cred.ownMind;
        if (got.status >= 200 && got.status < 300) {
          // Only a conversation name in the caller's own mind may succeed, and it holds none of A's messages.
          if (!conversational) failures.push(`${where}: ${got.status} (expected 401/403/404)`);
          continue;
        }
        if (![401, 403, 404].includes(got.status)) {
          failures.push(`${where}: ${got.status} ${text.slice(0, 200)}`);
          continue;
        }
        // Indistinguishable from an id that exists nowhere.
        const missing = await call(route, fill(route, false), cred.headers());
        const foreignId = idsOf(kinds[kinds.length - 1]!, true);
        const missingId = idsOf(kinds[kinds.length - 1]!, false);
        const [x, y] = [normalised(got, foreignId), normalised(missing, missingId)];
        if (JSON.stringify(x) !== JSON.stringify(y)) failures.push(`${where}: ${JSON.stringify(x)} differs from a missing id's ${JSON.stringify(y)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshotA()).toEqual(before);
  });

  it("routes without ids, called by B: never A's data; with A's mind in X-Mind-Id the mind-scoped ones answer 403/404", async () => {
    const before = await snapshotA();
    const failures: string[] = [];
    for (const cred of credentials().filter((c) => c.name.startsWith("B's"))) {
      for (const route of plainRoutes()) {
        const where = `${label(route)} as ${cred.name}`;
        const got = await call(route, route.path, cred.headers());
        const text = textOf(got);
        for (const secret of [...secretsOfA(), ...tenantFactsOfA().filter((f) => f !== a.mindId || cred.ownMind)]) {
          if (text.includes(secret)) failures.push(`${where}: answer contains A's ${secret}`);
        }
        if (got.status >= 500) failures.push(`${where}: ${got.status}`);
        if (!cred.ownMind && (route.path.startsWith('/v1/memory') || route.path === '/mcp') && got.status < 300) {
          failures.push(`${where}: ${got.status} on A's mind`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshotA()).toEqual(before);
  });

  it("a Mind Key of another mind of A's tenant (A2) cannot list or search A's mind", async () => {
    const a2Agent = { Authorization: `Bearer ${a2.key}` };
    for (const route of plainRoutes().filter((r) => r.method === 'get' && r.path.startsWith('/v1/memory'))) {
      const res = await call(route, route.path, a2Agent);
      expect(textOf(res)).not.toContain(SECRET);
      expect(textOf(res)).not.toContain(memoryA);
    }
    // Naming A's mind in X-Mind-Id with A2's key: 403.
    await t.http().get('/v1/memory').set({ ...a2Agent, 'X-Mind-Id': a.mindId }).expect(403);
    cases += 1;
  });

  for (const which of ['revoked key', "deleted mind's key"] as const) {
    it(`a ${which} answers 401 on every route that is not public`, async () => {
      const key = which === 'revoked key' ? revokedKey : deletedMindKey;
      const answers: Array<[string, number]> = [];
      for (const route of [...paramRoutes(), ...plainRoutes()]) {
        const res = await call(route, fill(route, true), { Authorization: `Bearer ${key}` });
        answers.push([label(route), res.status]);
        expect(textOf(res)).not.toContain(SECRET);
        if (res.status === 401) expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.any(String), requestId: expect.any(String) });
      }
      expect(answers.filter(([, status]) => status !== 401)).toEqual([]);
    });
  }
});

describe('isolation under concurrency: two tenants on a pool of two connections', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const own: Record<'a' | 'b', Set<string>> = { a: new Set(), b: new Set() };
  const N = 12;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MAX: '2' });
    a = await createTenant(t, 'conc-a');
    b = await createTenant(t, 'conc-b');
    for (const [name, f] of [['a', a], ['b', b]] as const) {
      const items = Array.from({ length: N }, (_, i) => ({ category: 'fact', key: `item_${i}`, content: `marker-${name}-tenant zebra lantern ${i}`, tags: ['shared'] }));
      await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items }).expect((r) => expect(r.status).toBeLessThan(300));
      const list = await t.http().get('/v1/memory').query({ limit: '200' }).set(asAgent(f)).expect(200);
      for (const m of list.body.items as Array<{ id: string }>) own[name].add(m.id);
      expect(own[name].size).toBe(N);
    }
  });
  afterAll(() => t?.close());

  it("200 interleaved lists, searches, gets and recalls by A and B never see the other's rows", async () => {
    const ops = ['list', 'search', 'by-tag', 'get', 'recall', 'foreign-get', 'stats'] as const;
    const jobs = Array.from({ length: 200 }, (_, i) => {
      const name = i % 2 === 0 ? 'a' : 'b';
      const other = name === 'a' ? 'b' : 'a';
      const f = name === 'a' ? a : b;
      const headers = Math.floor(i / 2) % 2 === 0 ? asAgent(f) : asUser(f);
      const op = ops[Math.floor(i / 2) % ops.length]!;
      const mine = [...own[name]];
      const theirs = [...own[other]];
      return (async () => {
        let res: Response;
        switch (op) {
          case 'list':
            res = await t.http().get('/v1/memory').query({ limit: '200' }).set(headers);
            break;
          case 'search':
            res = await t.http().get('/v1/memory/search').query({ q: 'zebra lantern', limit: '100' }).set(headers);
            break;
          case 'by-tag':
            res = await t.http().get('/v1/memory/by-tag').query({ tag: 'shared', limit: '200' }).set(headers);
            break;
          case 'get':
            res = await t.http().get(`/v1/memory/${mine[i % mine.length]}`).set(headers);
            break;
          case 'recall':
            res = await t.http().get('/v1/memory/recall').set(headers);
            break;
          case 'foreign-get':
            res = await t.http().get(`/v1/memory/${theirs[i % theirs.length]}`).set(headers);
            break;
          case 'stats':
            res = await t.http().get('/v1/memory/stats').set(headers);
            break;
        }
        return { i, name, other, op, res };
      })();
    });
    const results = await Promise.all(jobs);
    const problems: string[] = [];
    for (const { i, name, other, op, res } of results) {
      const text = res.text ?? JSON.stringify(res.body);
      const where = `#${i} ${op} by ${name}`;
      if (op === 'foreign-get') {
        if (res.status !== 404) problems.push(`${where}: ${res.status}`);
      } else if (res.status !== 200) {
        problems.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
      }
      if (text.includes(`marker-${other}-tenant`)) problems.push(`${where}: saw ${other}'s content`);
      for (const id of own[other as 'a' | 'b']) if (text.includes(id)) problems.push(`${where}: saw ${other}'s id ${id}`);
      if (op === 'list' || op === 'search' || op === 'by-tag') {
        const ids = (res.body.items as Array<{ id: string }>).map((m) => m.id);
        if (ids.length === 0 || ids.some((id) => !own[name as 'a' | 'b'].has(id))) problems.push(`${where}: items ${ids.join(',')}`);
      }
      if (op === 'get' && !text.includes(`marker-${name}-tenant`)) problems.push(`${where}: did not get its own memory`);
      if (op === 'recall' && !text.includes(`marker-${name}-tenant`)) problems.push(`${where}: recall lacks its own memories`);
      if (op === 'stats' && res.body.total !== N) problems.push(`${where}: total ${res.body.total}`);
    }
    expect(problems).toEqual([]);
  });
});

import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { listRoutes, type Route } from './support/routes';

const MISSING = '01a22895-c86e-7310-8c55-f345f5cdfafa';

// Every route with an id, called by tenant B with tenant A's ids, must answer exactly as for an
// id that exists nowhere, and leave A's data as it was.
describe('tenant isolation: foreign ids answer like missing ones', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let memoryA: string;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t, 'alice');
    b = await createTenant(t, 'bob');
    memoryA = (await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'secret', content: 'Alice secret', tags: ['private'] }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  // Reads that are not accesses (a GET by id or a recall would change the lifecycle fields).
  const snapshotA = async () => ({
    memories: (await t.http().get('/v1/memory').query({ include_expired: 'true' }).set(asUser(a)).expect(200)).body,
    history: (await t.http().get(`/v1/memory/${memoryA}/history`).set(asUser(a)).expect(200)).body,
    keys: (await t.http().get(`/v1/minds/${a.mindId}/keys`).set({ Authorization: `Bearer ${a.token}` }).expect(200)).body,
  });

  const withIds = (route: Route, ids: { mind: string; memory: string; key: string }) =>
    route.path
      .replace(/^\/v1\/minds\/:id/, `/v1/minds/${ids.mind}`)
      .replace(':keyId', ids.key)
      .replace(':deliveryId', ids.memory)
      .replace(':id', ids.memory);

  // A body each route accepts, so that validation (400) cannot answer before the look-up does.
  const bodyFor = (route: Route) =>
    route.method === 'put' ? { content: 'overwritten' } : route.method === 'patch' ? { enabled: false } : route.method === 'post' ? {} : undefined;

  const call = (route: Route, path: string, headers: Record<string, string>) => {
    const req = t.http()[route.method](path).set(headers);
    const body = bodyFor(route);
    return body === undefined ? req : req.send(body);
  };

  const strip = (body: Record<string, unknown>) => {
    const { requestId: _ignored, ...rest } = body;
    return rest;
  };

  // Routes that name a record by a server-issued id. Conversation ids and external ids are
  // names chosen by each mind or tenant, not records of a tenant: conversations have their own
  // test below, external ids test/isolation-matrix.test.ts and test/service-keys.test.ts.
  const idRoutes = () => listRoutes(t.app).filter((r) => /:(id|keyId|deliveryId)\b/.test(r.path));

  it('covers every route that takes an id', () => {
    const routes = listRoutes(t.app).filter((r) => r.path.includes(':'));
    expect(routes.filter((r) => !/:(id|keyId|deliveryId|conversationId|externalId)\b/.test(r.path))).toEqual([]);
    const idRoutesList = idRoutes();
    expect(idRoutesList.length).toBeGreaterThanOrEqual(10);
  });

  for (const who of ['user JWT', 'Mind Key'] as const) {
    it(`as B's ${who}`, async () => {
      const before = await snapshotA();
      const headers = who === 'user JWT' ? asUser(b) : asAgent(b);
      const foreign = { mind: a.mindId, memory: memoryA, key: a.mindKeyId };
      const missing = { mind: MISSING, memory: MISSING, key: MISSING };
      for (const route of idRoutes()) {
        const got = await call(route, withIds(route, foreign), headers);
        const expected = await call(route, withIds(route, missing), headers);
        expect({ route: `${route.method} ${route.path}`, status: got.status, body: strip(got.body) }).toEqual({
          route: `${route.method} ${route.path}`,
          status: expected.status,
          body: strip(expected.body),
        });
        expect([401, 403, 404]).toContain(got.status);
        expect(JSON.stringify(got.body)).not.toContain('Alice secret');
      }
      expect(await snapshotA()).toEqual(before);
    });
  }

  it("B's user naming A's mind in X-Mind-Id gets 404, like a mind that does not exist", async () => {
    for (const path of ['/v1/memory', '/v1/memory/recall', '/v1/memory/expiring']) {
      const got = await t.http().get(path).set(asUser(b, a.mindId));
      const expected = await t.http().get(path).set(asUser(b, MISSING));
      expect([got.status, strip(got.body)]).toEqual([404, strip(expected.body)]);
    }
    const search = await t.http().get('/v1/memory/search').query({ q: 'secret' }).set(asUser(b, a.mindId)).expect(404);
    expect(JSON.stringify(search.body)).not.toContain('Alice');
    await t.http().post('/v1/memory').set(asUser(b, a.mindId)).send({ category: 'fact', key: 'planted', content: 'x' }).expect(404);
    const recallA = await t.http().get('/v1/memory/recall').set(asAgent(a)).expect(200);
    expect(recallA.text).not.toContain('planted');
  });

  it("a conversation id is per mind: B using A's conversation id sees and touches only its own", async () => {
    await t.http().post('/v1/conversations/shared-name/messages').set(asAgent(a)).send({ messages: [{ content: 'Alice private plan for the merger talks' }] }).expect(201);
    const stmB = await t.http().get('/v1/conversations/shared-name/stm').set(asAgent(b)).expect(200);
    expect(stmB.body.entries).toEqual([]);
    const saved = await t.http().post('/v1/conversations/shared-name/consolidate').set(asAgent(b)).expect(200);
    expect(saved.body.consolidated).toEqual([]);
    const stmA = await t.http().get('/v1/conversations/shared-name/stm').set(asAgent(a)).expect(200);
    expect(stmA.body.entries).toHaveLength(1);
    await t.http().get('/v1/conversations/shared-name/stm').set(asUser(b, a.mindId)).expect(404);
  });

  it("search and lists of B never contain A's memories", async () => {
    await t.http().post('/v1/memory').set(asAgent(b)).send({ category: 'fact', key: 'secret', content: 'Bob secret', tags: ['private'] }).expect(201);
    const search = await t.http().get('/v1/memory/search').query({ q: 'secret' }).set(asAgent(b)).expect(200);
    expect(search.body.items.map((m: { content: string }) => m.content)).toEqual(['Bob secret']);
    const tagged = await t.http().get('/v1/memory/by-tag').query({ tag: 'private' }).set(asAgent(b)).expect(200);
    expect(tagged.body.items.map((m: { content: string }) => m.content)).toEqual(['Bob secret']);
  });

  it("another mind of the same tenant: its memories answer 404 to this mind's key", async () => {
    const other = await t.http().post('/v1/minds').set({ Authorization: `Bearer ${a.token}` }).send({ name: 'second mind' }).expect(201);
    const key = await t.http().post(`/v1/minds/${other.body.id}/keys`).set({ Authorization: `Bearer ${a.token}` }).send({}).expect(201);
    const otherAgent = { Authorization: `Bearer ${key.body.key}` };
    await t.http().get(`/v1/memory/${memoryA}`).set(otherAgent).expect(404);
    await t.http().put(`/v1/memory/${memoryA}`).set(otherAgent).send({ content: 'hijack' }).expect(404);
    await t.http().delete(`/v1/memory/${memoryA}`).set(otherAgent).expect(404);
    await t.http().get(`/v1/memory/${memoryA}`).set(asUser(a, other.body.id)).expect(404);
    const mine = await t.http().get(`/v1/memory/${memoryA}`).set(asAgent(a)).expect(200);
    expect(mine.body.content).toBe('Alice secret');
  });
});

import type { Response } from 'supertest';
import { asAgent, asUser, createTenant, type TenantFixture, type TestApp } from './test-app';
import { bodyFor, isPublic, label, paramKind, paramsOf, PUBLIC_ROUTES, queryFor, type Kind } from './isolation-routes';
import { listRoutes, type Route } from './routes';

// Issue 8, item 1: an isolation matrix generated from the application's route table (Express's
// router, read at run time by test/support/routes.ts), so a new endpoint is covered without
// anyone remembering to add it here. Every route is either declared public (with the reason, in
// test/support/isolation-routes.ts) or is called with every foreign credential; a route with a
// path parameter of a kind not known there fails the suite until someone says which record the
// parameter names. test/isolation-concurrency.test.ts checks the same under concurrent load.
// The tests are declared by isolationMatrix, inside a describe of the caller's, against the API
// `open` gives: test/isolation-matrix.test.ts (PostgreSQL), test/citus.test.ts (a Citus cluster).

const MISSING_UUID = '01a22895-c86e-7310-8c55-f345f5cdfafa';
const MISSING_CONVERSATION = 'never-used-conversation-4b1d';
const MISSING_EXTERNAL_ID = 'never-used-external-id-77c2';
const EXTERNAL_ID_A = 'alice-saas-user-1';

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

/** The API the matrix runs against, with owner access to its database (for seeding), and how to let go of it. */
export interface MatrixTarget {
  t: Pick<TestApp, 'app' | 'http'>;
  /** One SQL statement as the database's owner (row-level security does not apply). */
  owner: <T>(query: string, params?: unknown[]) => Promise<T[]>;
  close(): Promise<void>;
}

/** Declares the matrix's tests in the caller's describe; `open` runs in its beforeAll. */
export function isolationMatrix(open: () => Promise<MatrixTarget>): void {
  let target: MatrixTarget;
  let t: MatrixTarget['t'];
  let a: TenantFixture;
  let b: TenantFixture;
  let a2 = { mindId: '', key: '' };
  let revokedKey = '';
  let deletedMindKey = '';
  let serviceKeyA = { id: '', key: '' };
  let serviceKeyB = '';
  let revokedServiceKey = '';
  let webhookA = '';
  const deliveryA = '01a22895-c86e-7310-8c55-f345f5cd0dea';
  let memoryA = '';
  let historyMemoryA = '';
  const conversationA = 'alice-board-meeting-7f3e';
  const SECRET = 'ALICE-SECRET-quartz-pelican-9931';
  const CONVO_SECRET = 'ALICE-CONVO-SECRET-merger-with-globex';
  let routes: Route[] = [];
  let cases = 0;
  let foreignCases = 0;

  beforeAll(async () => {
    target = await open();
    t = target.t;
    a = await createTenant(t as TestApp, 'alice');
    b = await createTenant(t as TestApp, 'bob');
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

    // Service keys: A's (the tenant's own backend), B's, and a revoked one of A's. A's main mind
    // gets an external id (a SaaS user id), which B may use for a mind of its own.
    const ALL_SCOPES = ['minds:manage', 'memories:read', 'memories:write'];
    const skA = await t.http().post('/v1/service-keys').set(owner).send({ name: 'alice backend', scopes: ALL_SCOPES }).expect(201);
    serviceKeyA = { id: skA.body.id, key: skA.body.key };
    await t.http().put(`/v1/minds/by-external-id/${EXTERNAL_ID_A}`).set({ Authorization: `Bearer ${serviceKeyA.key}` }).send({ name: 'alice saas user' }).expect(201);
    serviceKeyB = (await t.http().post('/v1/service-keys').set({ Authorization: `Bearer ${b.token}` }).send({ name: 'bob backend', scopes: ALL_SCOPES }).expect(201)).body.key;
    const skRevoked = await t.http().post('/v1/service-keys').set(owner).send({ name: 'to revoke', scopes: ALL_SCOPES }).expect(201);
    revokedServiceKey = skRevoked.body.key;
    await t.http().get('/v1/memory').set({ Authorization: `Bearer ${revokedServiceKey}`, 'X-Mind-Id': a.mindId }).expect(200);
    await t.http().delete(`/v1/service-keys/${skRevoked.body.id}`).set(owner).expect(204);

    // A webhook endpoint of A with one delivery (written by hand: it subscribes to an event that
    // nothing here causes, so nothing is ever sent to its documentation-range address).
    webhookA = (await t.http().post('/v1/webhooks').set(owner).send({ url: 'https://203.0.113.10/alice', events: ['memory.evicted'] }).expect(201)).body.id;
    await target.owner(`insert into webhook_deliveries (tenant_id, id, endpoint_id, event_type, payload, status, next_attempt_at) values ($1, $2, $3, 'memory.evicted', $4, 'failed', null)`, [
      a.tenantId,
      deliveryA,
      webhookA,
      JSON.stringify({ type: 'memory.evicted', timestamp: new Date().toISOString(), data: { mind_id: a.mindId, memory_id: memoryA, category: 'fact', key: 'secret' } }),
    ]);

    routes = listRoutes(t.app);
  });
  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`isolation matrix: ${routes.length} router entries (${paramRoutes().length} with ids, ${plainRoutes().length} without, ${routes.filter(isPublic).length} public), ${cases} route x credential calls, of which ${foreignCases} foreign-credential x foreign-id cases`);
    await target?.close();
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
  const tenantFactsOfA = () => [a.mindId, a.mindKeyId, a.tenantId, a.userId, a.email, a2.mindId, serviceKeyA.id, webhookA, deliveryA];

  const idsOf = (kind: Kind, foreign: boolean): string => {
    if (!foreign) return kind === 'conversation' ? MISSING_CONVERSATION : kind === 'externalId' ? MISSING_EXTERNAL_ID : MISSING_UUID;
    return { memory: memoryA, mind: a.mindId, key: a.mindKeyId, conversation: conversationA, serviceKey: serviceKeyA.id, externalId: EXTERNAL_ID_A, webhook: webhookA, delivery: deliveryA }[kind];
  };

  const fill = (route: Route, foreign: boolean) => route.path.replace(/:(\w+)/g, (_m, p: string) => idsOf(paramKind(route.path, p)!, foreign));

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
    { name: "B's service key, X-Mind-Id of B's mind", headers: () => ({ Authorization: `Bearer ${serviceKeyB}`, 'X-Mind-Id': b.mindId }), applies: () => true, ownMind: true },
    { name: "B's service key, X-Mind-Id of A's mind", headers: () => ({ Authorization: `Bearer ${serviceKeyB}`, 'X-Mind-Id': a.mindId }), applies: () => true, ownMind: false },
    // A's owner may manage A's minds and keys: only the mind-scoped routes are foreign to it here.
    {
      name: "A's JWT, X-Mind-Id of A2's mind",
      headers: () => asUser(a, a2.mindId),
      applies: (kinds) => !kinds.some((k) => ['mind', 'key', 'serviceKey', 'externalId', 'webhook', 'delivery'].includes(k)),
      ownMind: true,
    },
  ];

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
        // A name the caller chooses: a conversation in its own mind, or an external id in its own
        // tenant (B's PUT by A's external id gets or creates B's mind of that name).
        const conversational = (kinds.includes('conversation') && cred.ownMind) || (kinds.includes('externalId') && cred.name.startsWith("B's"));
        if (got.status >= 200 && got.status < 300) {
          // Only a name of the caller's own (above) may succeed, and it holds none of A's data.
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

  for (const which of ['revoked key', "deleted mind's key", 'revoked service key'] as const) {
    it(`a ${which} answers 401 on every route that is not public`, async () => {
      const key = { 'revoked key': revokedKey, "deleted mind's key": deletedMindKey, 'revoked service key': revokedServiceKey }[which];
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
}

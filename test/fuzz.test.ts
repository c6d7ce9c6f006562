import fc from 'fast-check';
import { Client } from 'pg';
import { buildOpenApiDocument } from '../apps/api/src/create-app';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { bodyFor, headerText, pathIdFor, queryFor, type Case } from './support/fuzz-arbitraries';
import { endpointsOf, type Endpoint } from './support/openapi-endpoints';

// Issue 8, item 3: every endpoint of the OpenAPI document (so a new one is covered without
// editing this file), with fast-check-generated bodies, query strings, headers and path ids,
// as a Mind Key and as a user JWT with X-Mind-Id. Properties: never a 5xx; every 4xx is JSON in
// the API's error shape (a 400 names each bad field); a rejected write changes nothing stored.

/** Cases in all, split across the endpoints (weighted: writes and lists get more). */
const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 10_400);
// A fixed seed by default: CI runs the same 10 000 cases every time (a failure is reproducible
// and not a coin toss); FUZZ_SEED=random, or a number, explores further.
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20261130);

describe('fuzz: every endpoint of the OpenAPI document', () => {
  let t: TestApp;
  let f: TenantFixture;
  let other: TenantFixture;
  /** Deletes without a path id (DELETE /v1/tenant) act on a throwaway tenant, replaced when one goes. */
  let victim: TenantFixture;
  let owner: Client;
  let knownIds: string[];
  const createdIds: string[] = [];
  let endpoints: Endpoint[];

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'fuzz');
    other = await createTenant(t, 'fuzz-other');
    const m1 = (await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'office_city', content: 'Office is in Berlin', tags: ['office'] }).expect(201)).body;
    const m2 = (await t.http().post('/v1/memory').set(asUser(f)).send({ category: 'preference', key: 'coffee', content: 'Likes flat white', priority: 'critical' }).expect(201)).body;
    const foreign = (await t.http().post('/v1/memory').set(asAgent(other)).send({ category: 'fact', key: 'secret', content: 'Another tenant' }).expect(201)).body;
    await t.http().post('/v1/conversations/conv-1/messages').set(asAgent(f)).send({ messages: [{ content: 'My name is Michael and I live in Berlin' }] }).expect((r) => expect(r.status).toBeLessThan(300));
    knownIds = [m1.id, m2.id, foreign.id, f.mindId, f.mindKeyId, other.mindId, 'conv-1'];
    victim = await createTenant(t, 'victim');
    owner = new Client({ connectionString: t.db.ownerUrl });
    await owner.connect();
    endpoints = endpointsOf(buildOpenApiDocument(t.app));
  });
  afterAll(async () => {
    await owner?.end();
    await t?.close();
  });

  /**
   * What the tenants stored, as one hash per table (reads may move access counts, retention and
   * tiers; those are left out): memories, versions, messages, STM, minds, keys, users, tenants.
   */
  const stored = async (): Promise<Record<string, string>> => {
    const { rows } = await owner.query<{ name: string; n: string; h: string }>(`
      select 'memories' as name, count(*)::text as n, coalesce(md5(string_agg(concat_ws('|', id, mind_id, category, key, content, tags::text, priority, confidence, expires_at, version, verified, source, payload::text, source_refs::text, temporal_context, temporal_position, occurred_at), ',' order by id)), '') as h from memories
      union all select 'memory_versions', count(*)::text, coalesce(md5(string_agg(concat_ws('|', memory_id, version, change, content, tags::text, priority, confidence, expires_at, verified), ',' order by memory_id, version)), '') from memory_versions
      union all select 'messages', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, conversation_id, role, speaker, content, metadata::text), ',' order by id)), '') from messages
      union all select 'stm_entries', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, content, message_ids::text), ',' order by id)), '') from stm_entries
      union all select 'minds', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, name, description), ',' order by id)), '') from minds
      union all select 'mind_keys', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, name, revoked_at), ',' order by id)), '') from mind_keys
      union all select 'users', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, email, role), ',' order by id)), '') from users
      union all select 'tenants', count(*)::text, coalesce(md5(string_agg(concat_ws('|', id, name, settings::text), ',' order by id)), '') from tenants`);
    return Object.fromEntries(rows.map((r) => [r.name, `${r.n}:${r.h}`]));
  };

  const headersFor = (c: Case, ep: Endpoint): Record<string, string> => {
    const me = ep.method === 'delete' && ep.pathParams.length === 0 ? victim : f;
    const base: Record<string, string> = (() => {
      switch (c.auth) {
        case 'agent':
          return asAgent(me);
        case 'user':
          return asUser(me);
        case 'user-no-mind':
          return { Authorization: `Bearer ${f.token}` };
        case 'user-other-mind':
          return asUser(f, other.mindId);
        case 'garbage':
          return { Authorization: 'Bearer emk_not_a_real_key' };
        case 'none':
          return {};
      }
    })();
    return { ...base, ...c.extraHeaders };
  };

  const send = (ep: Endpoint, c: Case) => {
    let path = ep.path;
    ep.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, c.ids[i] ?? 'x')));
    let req = t.http()[ep.method](path);
    // superagent would throw on some characters: build the query string ourselves (repeated keys).
    const qs = Object.entries(c.query)
      .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one) => {
        try {
          return `${encodeURIComponent(k)}=${encodeURIComponent(one)}`;
        } catch {
          return `${encodeURIComponent(k)}=%ED%A0%80`;
        }
      }))
      .join('&');
    if (qs) req = t.http()[ep.method](`${path}?${qs}`);
    for (const [k, v] of Object.entries(headersFor(c, ep))) req = req.set(k, v);
    if (ep.method !== 'get') {
      if (c.body.kind === 'json') req = req.set('Content-Type', 'application/json').send(JSON.stringify(c.body.value) ?? 'null');
      else if (c.body.kind === 'raw') req = req.set('Content-Type', c.body.contentType).send(c.body.text);
    }
    return req;
  };

  it('never answers 5xx; every 4xx is the error shape; rejected writes change nothing', async () => {
    const doc = buildOpenApiDocument(t.app);
    expect(endpoints.length).toBeGreaterThan(20);
    // Register and login hash passwords (slow by design): fewer cases there.
    const weight = (ep: Endpoint) => (/^\/v1\/auth\/(register|login)$/.test(ep.path) ? 0.3 : ep.isWrite ? 3 : 2);
    const totalWeight = endpoints.reduce((s, ep) => s + weight(ep), 0);
    const counts: Record<string, { cases: number; byStatus: Record<number, number> }> = {};
    let before = await stored();
    const started = Date.now();

    // Path-less deletes (the whole tenant) last.
    const pathless = (ep: Endpoint) => ep.method === 'delete' && ep.pathParams.length === 0;
    const writes = [...endpoints.filter((ep) => ep.isWrite && !pathless(ep)), ...endpoints.filter(pathless)];
    const reads = endpoints.filter((ep) => !ep.isWrite);
    const ms: Record<string, number> = {};
    const fuzz = async (ep: Endpoint) => {
      const epStarted = Date.now();
      const label = `${ep.method.toUpperCase()} ${ep.path}`;
      const stat: { cases: number; byStatus: Record<number, number> } = { cases: 0, byStatus: {} };
      counts[label] = stat;
      const numRuns = Math.max(25, Math.round((TOTAL_RUNS * weight(ep)) / totalWeight));
      const caseArb: fc.Arbitrary<Case> = fc.record({
        auth: fc.oneof(
          { weight: 6, arbitrary: fc.constant('agent' as const) },
          { weight: 6, arbitrary: fc.constant('user' as const) },
          { weight: 1, arbitrary: fc.constantFrom('user-no-mind' as const, 'user-other-mind' as const, 'garbage' as const, 'none' as const) },
        ),
        extraHeaders: fc
          .option(
            fc.oneof(
              fc.record({ 'X-Mind-Id': fc.oneof(fc.uuid(), headerText, fc.constant(other.mindId)) }),
              fc.record({ 'X-Request-Id': headerText.filter((s) => s.length > 0) }),
              fc.record({ 'Content-Encoding': fc.constantFrom('gzip', 'bogus', 'br', 'deflate, gzip', 'identity') }),
              fc.record({ Accept: fc.constantFrom('text/plain', 'application/xml', '*/*') }),
            ),
            { freq: 5 },
          )
          .map((h) => (h ?? {}) as Record<string, string>),
        ids: fc.tuple(...ep.pathParams.map(() => pathIdFor(knownIds, ep.method === 'delete', createdIds))),
        query: queryFor(doc, ep),
        body: bodyFor(doc, ep),
      });
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          stat.cases += 1;
          const res = await send(ep, c);
          stat.byStatus[res.status] = (stat.byStatus[res.status] ?? 0) + 1;
          if (ep.method === 'delete' && ep.pathParams.length === 0 && res.status < 300) victim = await createTenant(t, 'victim');
          if (ep.method === 'post' && res.status < 300 && typeof (res.body as { id?: unknown })?.id === 'string' && createdIds.length < 500) {
            const id = (res.body as { id: string }).id;
            if (id !== f.mindId && id !== other.mindId) createdIds.push(id);
          }
          const where = `${label} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx: ${where}`);
          if (res.status >= 400) {
            if (!/^application\/json/.test(String(res.headers['content-type']))) throw new Error(`error answer not JSON: ${where}`);
            const b = res.body as { statusCode?: unknown; error?: unknown; message?: unknown; requestId?: unknown; errors?: unknown };
            if (b.statusCode !== res.status || typeof b.error !== 'string' || typeof b.message !== 'string' || typeof b.requestId !== 'string' || b.requestId === '') {
              throw new Error(`not the error shape: ${where}`);
            }
            if (b.errors !== undefined) {
              if (!Array.isArray(b.errors) || b.errors.length === 0) throw new Error(`errors is not a non-empty list: ${where}`);
              for (const e of b.errors as { field?: unknown; message?: unknown }[]) {
                if (typeof e.field !== 'string' || e.field === '' || typeof e.message !== 'string') throw new Error(`a problem names no field: ${where}`);
              }
            }
            // A validation error names the field(s): zod's answers always carry `errors`.
            if (res.status === 400 && b.errors === undefined && !/a value breaks a storage rule/.test(String(b.message))) {
              throw new Error(`400 without errors[]: ${where}`);
            }
          }
          if (ep.isWrite) {
            const after = await stored();
            if (res.status < 200 || res.status >= 300) {
              if (JSON.stringify(after) !== JSON.stringify(before)) {
                throw new Error(`a rejected write changed stored data: ${where}\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`);
              }
            }
            before = after;
          }
        }),
        { numRuns, seed: SEED, endOnFailure: true },
      );
      ms[label] = Date.now() - epStarted;
    };
    // Writes one at a time, each checked against the stored data; then the reads, three at a time
    // (nothing writes meanwhile, so the check after them covers them all).
    for (const ep of writes) await fuzz(ep);
    const queue = [...reads];
    await Promise.all([0, 1, 2].map(async () => {
      for (let ep = queue.shift(); ep; ep = queue.shift()) await fuzz(ep);
    }));

    // Reads (the GETs in between the writes) may not change anything stored either.
    expect(await stored()).toEqual(before);
    const total = Object.values(counts).reduce((s, c) => s + c.cases, 0);
    const lines = Object.entries(counts).map(([label, c]) => `${String(c.cases).padStart(5)}  ${label}  ${JSON.stringify(c.byStatus)} ${ms[label]} ms`);
    console.log(`fuzz: ${total} cases over ${endpoints.length} endpoints in ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}`);
    expect(total).toBeGreaterThanOrEqual(10_000);
  }, 240_000);
});

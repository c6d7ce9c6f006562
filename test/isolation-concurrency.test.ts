import type { Response } from 'supertest';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// Issue 8, item 1, under load: the tenant is a transaction-local setting (app.tenant_id, set by
// TenantDb in @engram/db) on pooled connections. With a pool of two, each connection serves both
// tenants in turn, so a setting that outlived its transaction would hand one tenant the other's
// rows. The route-by-route matrix with foreign credentials is test/isolation-matrix.test.ts.

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

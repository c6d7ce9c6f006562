import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

describe('memory API (seed 002)', () => {
  let t: TestApp;
  let f: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'memory');
  });
  afterAll(() => t.close());

  const store = (headers: Record<string, string>, body: object) => t.http().post('/v1/memory').set(headers).send(body);

  describe('upsert by (category, key)', () => {
    it('creates (201), overwrites with history (200), and never duplicates', async () => {
      const first = await store(asAgent(f), {
        category: 'project',
        key: 'project_synapse_status',
        content: 'v1.4.0 deployed',
        priority: 'high',
        tags: ['Synapse', 'deployment', 'synapse'],
      }).expect(201);
      expect(first.body).toMatchObject({
        id: expect.any(String),
        created_at: expect.any(String),
        category: 'project',
        key: 'project_synapse_status',
        tags: ['synapse', 'deployment'],
        source: 'agent',
        verified: false,
        confidence: 0.7,
        version: 1,
        mind_id: f.mindId,
      });

      const second = await store(asAgent(f), {
        category: 'project',
        key: 'project_synapse_status',
        content: 'v1.5.0 deployed',
        priority: 'high',
      }).expect(200);
      expect(second.body).toMatchObject({ id: first.body.id, content: 'v1.5.0 deployed', version: 2, tags: ['synapse', 'deployment'] });

      const list = await t.http().get('/v1/memory').query({ category: 'project' }).set(asAgent(f)).expect(200);
      expect(list.body.items.filter((m: { key: string }) => m.key === 'project_synapse_status')).toHaveLength(1);

      const history = await t.http().get(`/v1/memory/${first.body.id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number; content: string; change: string }) => [v.version, v.change, v.content])).toEqual([
        [2, 'update', 'v1.5.0 deployed'],
        [1, 'create', 'v1.4.0 deployed'],
      ]);
      expect(history.body.items[0]).toMatchObject({ actor_type: 'mind_key', actor_id: f.mindKeyId });
    });

    it('the same key in another category is another memory', async () => {
      const a = await store(asAgent(f), { category: 'note', key: 'shared_key', content: 'a note' }).expect(201);
      const b = await store(asAgent(f), { category: 'fact', key: 'shared_key', content: 'a fact' }).expect(201);
      expect(a.body.id).not.toBe(b.body.id);
    });

    it('re-sending the same memory changes nothing and writes no version', async () => {
      const body = { category: 'fact', key: 'office_city', content: 'Office is in Berlin', tags: ['office'] };
      const created = await store(asUser(f), body).expect(201);
      const again = await store(asUser(f), body).expect(200);
      expect(again.body).toMatchObject({ version: 1, updated_at: created.body.updated_at });
      const history = await t.http().get(`/v1/memory/${created.body.id}/history`).set(asUser(f)).expect(200);
      expect(history.body.items).toHaveLength(1);
    });

    it('source, verified and confidence follow the writer (seed 002)', async () => {
      const byUser = await store(asUser(f), { category: 'identity', key: 'user_name', content: 'Michael Schäfer' }).expect(201);
      expect(byUser.body).toMatchObject({ source: 'user', verified: true, confidence: 1 });
      const guessed = await store(asAgent(f), {
        category: 'preference',
        key: 'prefers_dark_mode',
        content: 'User seems to prefer dark mode',
        confidence: 0.5,
        source: 'agent',
      }).expect(201);
      expect(guessed.body).toMatchObject({ source: 'agent', verified: false, confidence: 0.5 });
      const lie = await store(asAgent(f), { category: 'note', key: 'claims_user', content: 'x', source: 'user' }).expect(400);
      expect(lie.body.errors[0].field).toBe('source');
    });

    it('an agent changing a verified memory makes it unverified; re-asserting the same content does not', async () => {
      const created = await store(asUser(f), { category: 'skill', key: 'python_level', content: 'Advanced Python, 10+ years' }).expect(201);
      const same = await store(asAgent(f), { category: 'skill', key: 'python_level', content: 'Advanced Python, 10+ years', tags: ['python'] }).expect(200);
      expect(same.body).toMatchObject({ verified: true, source: 'user', confidence: 1, version: 2 });
      const changed = await store(asAgent(f), { category: 'skill', key: 'python_level', content: 'Expert Python' }).expect(200);
      expect(changed.body).toMatchObject({ id: created.body.id, verified: false, source: 'agent', confidence: 0.7 });
    });

    it('fifty parallel upserts of one key leave one memory with a complete history', async () => {
      const writes = Array.from({ length: 50 }, (_, i) =>
        store(asAgent(f), { category: 'context', key: 'race_key', content: `version ${i}` }),
      );
      const results = await Promise.all(writes);
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.every((r) => r.status === 201 || r.status === 200)).toBe(true);
      const ids = new Set(results.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      const history = await t.http().get(`/v1/memory/${id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
      expect(new Set(history.body.items.map((v: { content: string }) => v.content)).size).toBe(50);
    });
  });

  describe('reading', () => {
    let g: TenantFixture;
    beforeAll(async () => {
      g = await createTenant(t, 'reader');
      const items = [
        { category: 'identity', key: 'user_name', content: 'Michael Schäfer', tags: ['person', 'identity'], priority: 'critical' },
        { category: 'preference', key: 'communication_style', content: 'Prefers concise technical responses', tags: ['Communication'], priority: 'high' },
        { category: 'project', key: 'synapse_status', content: 'v1.5.0 deployed, working on v1.6.0 docs', tags: ['synapse', 'deployment'], priority: 'high' },
        { category: 'note', key: 'redis_caching', content: 'Try Redis for caching next sprint', tags: ['redis', 'docker'], priority: 'low' },
        { category: 'context', key: 'current_meeting_topic', content: 'Discussing Q3 roadmap', expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString() },
        { category: 'context', key: 'old_meeting', content: 'Discussed Q2 roadmap in the swarm meeting', tags: ['docker'], expires_at: '2020-01-01T00:00:00Z' },
      ];
      for (const item of items) await store(asUser(g), item).expect(201);
      // The agent's memory is the newest high one and unverified.
      await store(asAgent(g), { category: 'mistake', key: 'mistake_npm_version', content: 'Forgot to bump npm version, CI failed', priority: 'high', tags: ['npm'] }).expect(201);
    });

    it('GET /memory/:id returns the memory; expired ones stay readable by id', async () => {
      const all = await t.http().get('/v1/memory').query({ include_expired: 'true', limit: 200 }).set(asAgent(g)).expect(200);
      const expired = all.body.items.find((m: { key: string }) => m.key === 'old_meeting');
      const one = await t.http().get(`/v1/memory/${expired.id}`).set(asAgent(g)).expect(200);
      expect(one.body.content).toBe('Discussed Q2 roadmap in the swarm meeting');
    });

    it('lists newest first, hides expired unless asked, filters by category, tag and priority', async () => {
      const list = await t.http().get('/v1/memory').set(asAgent(g)).expect(200);
      expect(list.body.items.map((m: { key: string }) => m.key)).toEqual([
        'mistake_npm_version',
        'current_meeting_topic',
        'redis_caching',
        'synapse_status',
        'communication_style',
        'user_name',
      ]);
      const withExpired = await t.http().get('/v1/memory').query({ include_expired: 'true' }).set(asAgent(g)).expect(200);
      expect(withExpired.body.items).toHaveLength(7);
      const high = await t.http().get('/v1/memory').query({ priority: 'high' }).set(asAgent(g)).expect(200);
      expect(high.body.items.map((m: { key: string }) => m.key).sort()).toEqual(['communication_style', 'mistake_npm_version', 'synapse_status']);
      const tagged = await t.http().get('/v1/memory').query({ tag: 'COMMUNICATION' }).set(asAgent(g)).expect(200);
      expect(tagged.body.items.map((m: { key: string }) => m.key)).toEqual(['communication_style']);
      const ctx = await t.http().get('/v1/memory').query({ category: 'context' }).set(asAgent(g)).expect(200);
      expect(ctx.body.items.map((m: { key: string }) => m.key)).toEqual(['current_meeting_topic']);
    });

    it('pages with next_cursor without skipping or repeating', async () => {
      const keys: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { items: { key: string }[]; next_cursor: string | null } } = await t
          .http()
          .get('/v1/memory')
          .query(cursor ? { limit: 2, cursor } : { limit: 2 })
          .set(asAgent(g))
          .expect(200);
        keys.push(...res.body.items.map((m) => m.key));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(keys).toHaveLength(6);
      expect(new Set(keys).size).toBe(6);
      await t.http().get('/v1/memory').query({ cursor: 'bogus' }).set(asAgent(g)).expect(400);
    });

    it('by-tag matches case-insensitively and leaves out expired memories', async () => {
      const res = await t.http().get('/v1/memory/by-tag').query({ tag: 'Docker' }).set(asAgent(g)).expect(200);
      expect(res.body.items.map((m: { key: string }) => m.key)).toEqual(['redis_caching']);
      const missing = await t.http().get('/v1/memory/by-tag').set(asAgent(g)).expect(400);
      expect(missing.body.errors[0].field).toBe('tag');
    });

    it('search ranks by full text, filters by tag and category, skips expired', async () => {
      const res = await t.http().get('/v1/memory/search').query({ q: 'what did we deploy?' }).set(asAgent(g)).expect(200);
      expect(res.body.items[0]).toMatchObject({ key: 'synapse_status', score: expect.any(Number) });
      const swarm = await t.http().get('/v1/memory/search').query({ q: 'swarm', tag: 'docker' }).set(asAgent(g)).expect(200);
      expect(swarm.body.items).toEqual([]);
      const redis = await t.http().get('/v1/memory/search').query({ q: 'caching with redis', tag: 'docker', category: 'note' }).set(asAgent(g)).expect(200);
      expect(redis.body.items.map((m: { key: string }) => m.key)).toEqual(['redis_caching']);
      const all = await t.http().get('/v1/memory/search').query({ q: 'roadmap -Q3', mode: 'all' }).set(asAgent(g)).expect(200);
      expect(all.body.items).toEqual([]);
      const stop = await t.http().get('/v1/memory/search').query({ q: 'the and of' }).set(asAgent(g)).expect(200);
      expect(stop.body.items).toEqual([]);
    });

    it('expiring lists what expires within the window', async () => {
      const week = await t.http().get('/v1/memory/expiring').query({ within: '7d' }).set(asAgent(g)).expect(200);
      expect(week.body.items.map((m: { key: string }) => m.key)).toEqual(['current_meeting_topic']);
      const day = await t.http().get('/v1/memory/expiring').query({ within: '24h' }).set(asAgent(g)).expect(200);
      expect(day.body.items).toEqual([]);
      const bad = await t.http().get('/v1/memory/expiring').query({ within: 'a week' }).set(asAgent(g)).expect(400);
      expect(bad.body.errors[0].field).toBe('within');
    });

    it('recall is plain text in exactly the seed-002 layout', async () => {
      const res = await t.http().get('/v1/memory/recall').set(asAgent(g)).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toBe(
        [
          'Mind: reader mind',
          'Memories: 6 total (5 verified, 1 unverified)',
          '',
          '[001] identity (CRITICAL) [verified]',
          '  user_name',
          '  Michael Schäfer',
          '  Tags: person, identity',
          '',
          '[002] mistake (HIGH) [unverified]',
          '  mistake_npm_version',
          '  Forgot to bump npm version, CI failed',
          '  Tags: npm',
          '',
          '[003] project (HIGH) [verified]',
          '  synapse_status',
          '  v1.5.0 deployed, working on v1.6.0 docs',
          '  Tags: synapse, deployment',
          '',
          '[004] preference (HIGH) [verified]',
          '  communication_style',
          '  Prefers concise technical responses',
          '  Tags: communication',
          '',
          '[005] context (NORMAL) [verified]',
          '  current_meeting_topic',
          '  Discussing Q3 roadmap',
          '',
          '[006] note (LOW) [verified]',
          '  redis_caching',
          '  Try Redis for caching next sprint',
          '  Tags: redis, docker',
          '',
        ].join('\n'),
      );
      const limited = await t.http().get('/v1/memory/recall').query({ limit: 1 }).set(asAgent(g)).expect(200);
      expect(limited.text.split('\n').slice(0, 4)).toEqual(['Mind: reader mind', 'Memories: 6 total (5 verified, 1 unverified)', '', '[001] identity (CRITICAL) [verified]']);
      expect(limited.text).not.toContain('[002]');
    });
  });

  describe('update, verify, delete', () => {
    it('PUT changes fields and keeps the old version; category and key cannot change', async () => {
      const created = await store(asAgent(f), { category: 'note', key: 'put_me', content: 'first', tags: ['a'] }).expect(201);
      const updated = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ content: 'second', priority: 'low' }).expect(200);
      expect(updated.body).toMatchObject({ content: 'second', priority: 'low', tags: ['a'], version: 2 });
      const cleared = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ expires_at: null }).expect(200);
      expect(cleared.body.version).toBe(2);
      const rename = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ key: 'other' }).expect(400);
      expect(rename.body.errors[0]).toEqual({ field: 'key', message: 'is not a known field here' });
      await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({}).expect(400);
    });

    it('only a person can verify: JWT 200, Mind Key 403', async () => {
      const created = await store(asAgent(f), { category: 'fact', key: 'verify_me', content: 'The office has two floors' }).expect(201);
      const denied = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asAgent(f)).expect(403);
      expect(denied.body.message).toMatch(/JWT/);
      const ok = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).expect(200);
      expect(ok.body).toMatchObject({ verified: true, version: 2 });
      const again = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).expect(200);
      expect(again.body.version).toBe(2);
      const history = await t.http().get(`/v1/memory/${created.body.id}/history`).set(asUser(f)).expect(200);
      expect(history.body.items[0]).toMatchObject({ change: 'verify', actor_type: 'user', actor_id: f.userId });
    });

    it('DELETE removes the memory and its history', async () => {
      const created = await store(asAgent(f), { category: 'note', key: 'delete_me', content: 'bye' }).expect(201);
      await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(204);
      await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(404);
      await t.http().get(`/v1/memory/${created.body.id}/history`).set(asAgent(f)).expect(404);
      await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(404);
    });
  });

  describe('batch', () => {
    it('stores up to 500 in one request and reports each status', async () => {
      const items = Array.from({ length: 500 }, (_, i) => ({ category: 'note', key: `bulk_${i}`, content: `bulk item ${i}` }));
      const res = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items }).expect(200);
      expect(res.body).toMatchObject({ created: 500, updated: 0, unchanged: 0 });
      const again = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items }).expect(200);
      expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 500 });
    });

    it('refuses 501 items, and a batch with one bad item stores nothing', async () => {
      const tooMany = Array.from({ length: 501 }, (_, i) => ({ category: 'note', key: `over_${i}`, content: 'x' }));
      const big = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items: tooMany }).expect(400);
      expect(big.body.errors[0].field).toBe('items');
      const mixed = [
        { category: 'note', key: 'mixed_ok', content: 'fine' },
        { category: 'note', key: 'Mixed-Bad', content: 'bad key' },
      ];
      const bad = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items: mixed }).expect(400);
      expect(bad.body.errors[0].field).toBe('items[1].key');
      const search = await t.http().get('/v1/memory').query({ category: 'note', limit: 200 }).set(asAgent(f)).expect(200);
      expect(search.body.items.find((m: { key: string }) => m.key === 'mixed_ok')).toBeUndefined();
    });
  });

  describe('the mind header for people', () => {
    it('requires X-Mind-Id with a JWT and checks it', async () => {
      const missing = await t.http().get('/v1/memory').set({ Authorization: `Bearer ${f.token}` }).expect(400);
      expect(missing.body.errors[0].field).toBe('X-Mind-Id');
      const malformed = await t.http().get('/v1/memory').set({ Authorization: `Bearer ${f.token}`, 'X-Mind-Id': 'mind-1' }).expect(400);
      expect(malformed.body.errors[0].field).toBe('X-Mind-Id');
      await t.http().get('/v1/memory').set(asUser(f, '01a22895-c86e-7310-8c55-f345f5cdfafa')).expect(404);
    });

    it('a Mind Key naming another mind in X-Mind-Id gets 403', async () => {
      await t.http().get('/v1/memory').set({ ...asAgent(f), 'X-Mind-Id': '01a22895-c86e-7310-8c55-f345f5cdfafa' }).expect(403);
      await t.http().get('/v1/memory').set({ ...asAgent(f), 'X-Mind-Id': f.mindId }).expect(200);
    });
  });
});

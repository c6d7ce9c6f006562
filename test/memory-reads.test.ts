import { asAgent, asUser, createTenant, startTestApp, storeMemory, type TenantFixture, type TestApp } from './support/test-app';

// The memory API's reads as seed 002 specifies them, over one mind of a fixed content (an expired
// memory, one that expires within days, an agent's unverified one): get by id, lists with their
// filters and cursor, by-tag, full-text search, expiring, and the plain-text recall layout. The
// writes are test/memory-writes.test.ts.

describe('memory API (seed 002)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

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
      for (const item of items) await storeMemory(t, asUser(g), item).expect(201);
      // The agent's memory is the newest high one and unverified.
      await storeMemory(t, asAgent(g), { category: 'mistake', key: 'mistake_npm_version', content: 'Forgot to bump npm version, CI failed', priority: 'high', tags: ['npm'] }).expect(201);
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
});

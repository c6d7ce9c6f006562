import { EmbeddingBackfillJob, ForgettingJob, TieringJob } from '@engram/jobs';
import { AccessRecorder } from '@engram/services';
import { fixtureWriter, seedMemories, setMemoryState } from './support/memory-fixtures';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';
import { TEST_REDIS_URL } from './support/env';

const DAY = 86_400_000;

const FIRST = 'The lighthouse keeper on Ushant taught Caroline to read the weather from the clouds.';
const STORY = `${FIRST} ${'She kept a logbook of every storm that season, with pressure readings and wind directions. '.repeat(5)}Years later she flew in a zeppelin over the same coast.`;
const HABIT = `Melanie runs along the river every morning before work, rain or shine, for about five kilometres. ${'It clears her head and she plans the day while running. '.repeat(5)}`;

// Tiering with a real effect (docs/design.md §5 tiers): cold and archived memories are compacted (a gist in
// the index, the full text compressed), archived ones leave the vector index, and every reader
// still gets the full text; an archived memory that is used comes back in full.
describe('tiering: storage by tier', () => {
  let t: TestApp;
  let f: TenantFixture;
  const ids: Record<string, string> = {};
  const now = new Date();

  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);
  // The table as the API's waiting accesses (written behind, ACCESS_FLUSH_MS) leave it.
  const row = async (key: string) =>
    (
      await t.app.get(AccessRecorder).flush(),
      await owner<{ tier: string; compacted: boolean; content: string; z_bytes: number | null; has_vector: boolean; embedding_status: string }>(
        `select tier, compacted, content, octet_length(content_z) as z_bytes, embedding is not null as has_vector, embedding_status
         from memories where key = $1`,
        [key],
      )
    )[0]!;

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'tiering');
    // Stored as long ago as they happened: tiers count uses per day since a memory was stored.
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    const seeds = [
      { key: 'story', content: STORY, storedAt: ago(400) },
      { key: 'habit', content: HABIT, storedAt: ago(400), state: { access_count: 100 } }, // 100 uses in 400 days: 0.25 a day, cold (> 0.1, ≤ 1).
      { key: 'today', content: 'Bought a new kettle', storedAt: now },
    ];
    const seeded = await seedMemories(fixtureWriter(t.app), f, seeds);
    seeds.forEach((s, i) => (ids[s.key] = seeded[i] as string));
    // Embedded as a write through the API would have been.
    await t.app.get(EmbeddingBackfillJob).embedTenant(f.tenantId);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('compacts cold and archived memories, drops archived vectors, leaves hot ones alone', async () => {
    const report = await t.app.get(TieringJob).run(f.tenantId, now);
    expect(report).toEqual({ retiered: 2, compacted: 2, expanded: 0, archived: 1, unarchived: 0, indexed: 0 });

    const story = await row('story');
    expect(story).toMatchObject({ tier: 'archive', compacted: true, content: FIRST, has_vector: false, embedding_status: 'archived' });
    // The compressed full text is a fraction of the text it replaces.
    expect(story.z_bytes).toBeLessThan(Buffer.byteLength(STORY) / 3);
    expect(await row('habit')).toMatchObject({ tier: 'cold', compacted: true, has_vector: true, embedding_status: 'ready' });
    expect((await row('habit')).content.length).toBeLessThanOrEqual(200);
    expect(await row('today')).toMatchObject({ tier: 'hot', compacted: false, content: 'Bought a new kettle', z_bytes: null, has_vector: true });

    // Running it again changes nothing.
    expect(await t.app.get(TieringJob).run(f.tenantId, now)).toEqual({ retiered: 0, compacted: 0, expanded: 0, archived: 0, unarchived: 0, indexed: 0 });
  });

  it('answers with the full text at every tier', async () => {
    const list = await t.http().get('/v1/memory').set(asAgent(f)).expect(200);
    const byKey = Object.fromEntries(list.body.items.map((m: { key: string; content: string; compacted: boolean }) => [m.key, m]));
    expect(byKey['story']).toMatchObject({ content: STORY, compacted: true });
    expect(byKey['habit']).toMatchObject({ content: HABIT, compacted: true });
    expect(byKey).not.toHaveProperty('story.content_z');
  });

  it('finds an archived memory by its gist, and rehydrates it when used: warm, in full, re-embedded', async () => {
    const hits = await t.http().get('/v1/memory/search').query({ q: 'lighthouse keeper' }).set(asAgent(f)).expect(200);
    const hit = hits.body.items.find((m: { key: string }) => m.key === 'story');
    expect(hit).toMatchObject({ content: STORY });

    expect(await row('story')).toMatchObject({ tier: 'warm', embedding_status: 'pending' });
    await t.app.get(EmbeddingBackfillJob).embedTenant(f.tenantId);
    expect(await row('story')).toMatchObject({ has_vector: true, embedding_status: 'ready' });

    // Used once in 400 days, it is archived again by the next sweep.
    const report = await t.app.get(TieringJob).run(f.tenantId, now);
    expect(report).toMatchObject({ retiered: 1, archived: 1 });
    expect(await row('story')).toMatchObject({ tier: 'archive', compacted: true, content: FIRST, has_vector: false });
  });

  it('expands a memory whose use makes it warm or hot again', async () => {
    await setMemoryState(fixtureWriter(t.app), f, ids['habit'] as string, { access_count: 5000 });
    expect(await t.app.get(TieringJob).run(f.tenantId, now)).toMatchObject({ retiered: 1, expanded: 1 });
    expect(await row('habit')).toMatchObject({ tier: 'hot', compacted: false, content: HABIT, z_bytes: null, has_vector: true });
  });

  it('a new content written to a compacted memory replaces it; the history keeps the old full text', async () => {
    const changed = 'The lighthouse on Ushant was automated in 1990.';
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'story', content: changed }).expect(200);
    expect(await row('story')).toMatchObject({ compacted: false, content: changed, z_bytes: null });
    const history = await t.http().get(`/v1/memory/${ids['story']}/history`).set(asAgent(f)).expect(200);
    expect(history.body.items.map((v: { content: string }) => v.content)).toEqual([changed, STORY]);
  });

  it('a save about an old event is neither forgotten, archived nor evicted on arrival; unused for 30 days, it is', async () => {
    const id = (
      await t
        .http()
        .post('/v1/memory')
        .set(asAgent(f))
        .send({ category: 'note', key: 'imported', content: 'Caroline once wore a green scarf', importance: 0.1, occurred_at: new Date(now.getTime() - 400 * DAY).toISOString() })
        .expect(201)
    ).body.id as string;
    const [tiering, forgetting] = [t.app.get(TieringJob), t.app.get(ForgettingJob)];
    await tiering.run(f.tenantId, now);
    await forgetting.run(f.tenantId, now);
    // Its life starts at the write: below the threshold (importance 0.1) but inside its first
    // review slot, so not forgotten yet; kept, hot, in full.
    expect(await row('imported')).toMatchObject({ tier: 'hot', compacted: false });
    expect((await owner<{ forgotten: boolean }>(`select forgotten_at is not null as forgotten from memories where id = $1`, [id]))[0]).toEqual({ forgotten: false });

    const later = new Date(now.getTime() + 31 * DAY);
    await tiering.run(f.tenantId, later);
    expect((await forgetting.run(f.tenantId, later)).evicted).toBeGreaterThanOrEqual(1);
    expect(await owner(`select 1 from memories where id = $1`, [id])).toEqual([]);
    expect(await owner<{ reason: string }>(`select reason from memory_tombstones where memory_id = $1`, [id])).toEqual([{ reason: 'evicted' }]);
  });
});

// Without REDIS_URL the API runs the same sweeps on its own timers (embedded mode, `npm start`);
// with it, it leaves them to the worker.
describe('background work in-process (no REDIS_URL)', () => {
  const stale = async (t: TestApp) => {
    const f = await createTenant(t, 'timers');
    // Stored 400 days ago and never used: the next tiering sweep archives it.
    await seedMemories(fixtureWriter(t.app), f, [{ key: 'unused', content: 'An unused note', storedAt: new Date(Date.now() - 400 * DAY) }]);
  };
  const tierAfter = async (t: TestApp, ms: number) => {
    await new Promise((r) => setTimeout(r, ms));
    return (await ownerQuery(t.db)<{ tier: string; compacted: boolean }>(`select tier, compacted from memories where key = 'unused'`))[0];
  };

  it('runs the tiering sweep on its timer', async () => {
    const t = await startTestApp({ TIERING_INTERVAL_MS: '300' });
    try {
      await stale(t);
      expect(await tierAfter(t, 1500)).toEqual({ tier: 'archive', compacted: true });
    } finally {
      await t.close();
    }
  });

  it('leaves it to the worker when REDIS_URL is set', async () => {
    const t = await startTestApp({ TIERING_INTERVAL_MS: '300', REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: `timers-${process.pid}` });
    try {
      await stale(t);
      expect(await tierAfter(t, 1500)).toEqual({ tier: 'hot', compacted: false });
    } finally {
      await t.close();
    }
  });
});

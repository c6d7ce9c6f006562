import { Client } from 'pg';
import { ManualClock, type Clock } from '@engram/config';
import { EmbeddingsRepository, TenantDb, TenantsRepository } from '@engram/db';
import { EMBEDDER, EmbeddingError, HashingEmbedder, type Embedder } from '@engram/embeddings';
import { EmbeddingBackfillJob } from '@engram/jobs';
import { FakeEmbeddingsServer } from './support/fake-embeddings-server';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// The API, the backfill and a worker's view of a remote provider (test/openai-embedder.test.ts
// tests the client itself against the same fake).

/** A backfill of its own (another process: its own model checks), with `embedder` and `clock`. */
function backfillWith(t: TestApp, embedder: Embedder, clock: Clock): EmbeddingBackfillJob {
  return new EmbeddingBackfillJob(t.app.get(TenantDb), t.app.get(EmbeddingsRepository), t.app.get(TenantsRepository), embedder, clock);
}

let fake: FakeEmbeddingsServer;
beforeAll(async () => {
  fake = await new FakeEmbeddingsServer().start();
});
afterAll(() => fake.close());

/** The API and the backfill, against the fake provider. */
function withApp(env: Record<string, string>) {
  const ctx = {} as { t: TestApp; f: TenantFixture; backfill: EmbeddingBackfillJob };
  beforeAll(async () => {
    fake.reset();
    ctx.t = await startTestApp({ EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed-1', ...env });
    ctx.f = await createTenant(ctx.t, 'embeddings');
    ctx.backfill = ctx.t.app.get(EmbeddingBackfillJob);
  });
  afterAll(() => ctx.t.close());
  return ctx;
}

const memory = (ctx: { t: TestApp; f: TenantFixture }, id: string) => ctx.t.http().get(`/v1/memory/${id}`).set(asAgent(ctx.f)).expect(200);
const search = (ctx: { t: TestApp; f: TenantFixture }, q: string) =>
  ctx.t.http().get('/v1/memory/search').query({ q, explain: 'true' }).set(asAgent(ctx.f)).expect(200);

async function attemptsOf(t: TestApp, id: string): Promise<number> {
  const c = new Client({ connectionString: t.db.ownerUrl });
  await c.connect();
  try {
    return (await c.query<{ n: number }>('select embedding_attempts as n from memories where id = $1', [id])).rows[0]?.n ?? -1;
  } finally {
    await c.end();
  }
}

describe('an embeddings provider outage loses no writes', () => {
  const ctx = withApp({ EMBEDDINGS_WAIT_MS: '300', EMBEDDINGS_TIMEOUT_MS: '200', EMBEDDINGS_API_KEY: 'sk-fake' });
  const store = (key: string, content: string) => ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key, content });
  let single: string;
  let batch: string[];

  it('with the provider up, a write is embedded at once by the configured model and key', async () => {
    fake.reset();
    const res = await store('editor', 'Prefers the Helix editor').expect(201);
    expect(res.body).toMatchObject({ embedding_status: 'ready', embedding_model: 'fake-embed-1', embedded_at: expect.any(String) });
    expect(fake.requests[0]).toMatchObject({ body: { model: 'fake-embed-1', input: ['Prefers the Helix editor'] }, authorization: 'Bearer sk-fake' });
  });

  it('while the provider is down, a write answers 201 promptly, pending, and is readable and found by full text', async () => {
    fake.reset({ mode: 'down' });
    const started = Date.now();
    const res = await store('car', 'Drives a turquoise Volvo estate').expect(201);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.body).toMatchObject({ content: 'Drives a turquoise Volvo estate', embedding_status: 'pending', embedded_at: null });
    single = res.body.id;
    expect((await memory(ctx, single)).body).toMatchObject({ content: 'Drives a turquoise Volvo estate', embedding_status: 'pending' });
    const hits = (await search(ctx, 'turquoise')).body.items;
    expect(hits.map((h: { id: string }) => h.id)).toEqual([single]);
    expect(hits[0].explain.vector.distance).toBeNull();
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it('while the provider is down, a batch write stores every memory, pending', async () => {
    fake.reset({ mode: 'down' });
    const items = ['Allergic to hazelnuts', 'Daughter is called Ines', 'Runs the Lisbon half marathon'].map((content, i) => ({ category: 'fact', key: `b${i}`, content }));
    const res = await ctx.t.http().post('/v1/memory/batch').set(asAgent(ctx.f)).send({ items }).expect(200);
    expect(res.body.created).toBe(3);
    batch = res.body.items.map((i: { id: string }) => i.id);
    for (const id of batch) expect((await memory(ctx, id)).body).toMatchObject({ embedding_status: 'pending', embedded_at: null });
    expect((await search(ctx, 'hazelnuts')).body.items.map((h: { id: string }) => h.id)).toEqual([batch[0]]);
  });

  it('the backfill during the outage loses nothing and spends no attempts, however often it runs', async () => {
    fake.reset({ mode: 'down' });
    for (let run = 0; run < 4; run++) expect(await ctx.backfill.runOnce()).toBe(0);
    expect(fake.requests.length).toBeGreaterThanOrEqual(4);
    for (const id of [single, ...batch]) {
      expect((await memory(ctx, id)).body).toMatchObject({ embedding_status: 'pending', embedded_at: null });
      expect(await attemptsOf(ctx.t, id)).toBe(0);
    }
  });

  it('once the provider is back, the backfill embeds every waiting memory and vector search finds them', async () => {
    fake.reset();
    expect(await ctx.backfill.runOnce()).toBe(4);
    for (const id of [single, ...batch]) {
      const m = (await memory(ctx, id)).body;
      expect(m).toMatchObject({ embedding_status: 'ready', embedding_model: 'fake-embed-1', embedded_at: expect.any(String) });
    }
    const hits = (await search(ctx, 'turquoise Volvo')).body.items;
    expect(hits[0]).toMatchObject({ id: single, explain: { vector: { distance: expect.any(Number) } } });
    expect(await ctx.backfill.runOnce()).toBe(0);
  });
});

describe('a provider slower than EMBEDDINGS_WAIT_MS', () => {
  const ctx = withApp({ EMBEDDINGS_WAIT_MS: '300', EMBEDDINGS_TIMEOUT_MS: '20000' });

  it('does not hold up the write: 201 pending long before the provider answers', async () => {
    fake.reset({ mode: 'slow', slowMs: 8000 });
    const started = Date.now();
    const res = await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key: 'slow', content: 'Owns a sourdough starter' }).expect(201);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.body).toMatchObject({ embedding_status: 'pending', embedded_at: null });
    expect((await memory(ctx, res.body.id)).body.content).toBe('Owns a sourdough starter');
  });

  it('then stops waiting for it: the next writes skip the provider until the backfill reaches it', async () => {
    const requestsBefore = fake.requests.length;
    const started = Date.now();
    for (let i = 0; i < 3; i++) await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key: `fast_${i}`, content: `Bakes loaf ${i}` }).expect(201);
    // Three writes in well under one EMBEDDINGS_WAIT_MS each, without asking the provider.
    expect(Date.now() - started).toBeLessThan(600);
    expect(fake.requests.length).toBe(requestsBefore);
    fake.reset();
    expect(await ctx.backfill.runOnce()).toBe(4);
    const again = await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key: 'after', content: 'Back to normal' }).expect(201);
    expect(again.body.embedding_status).toBe('ready');
  });
});

describe('texts the provider refuses', () => {
  const ctx = withApp({ EMBEDDINGS_WAIT_MS: '300', EMBEDDINGS_TIMEOUT_MS: '1000' });

  it('are marked failed after 3 refusals while the rest get embedded, and stay findable by full text', async () => {
    fake.reset({ mode: 'down' });
    const ids: Record<string, string> = {};
    for (const [key, content] of [
      ['good1', 'Keeps bees on the roof'],
      ['poison', 'POISON zanzibar clipping'],
      ['good2', 'Plays the cello on Sundays'],
    ]) {
      ids[key as string] = (await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key, content }).expect(201)).body.id;
    }
    fake.reset({ refuseIf: (text) => text.includes('POISON') });
    const status = async (key: string) => (await memory(ctx, ids[key] as string)).body.embedding_status as string;

    expect(await ctx.backfill.runOnce()).toBe(2);
    expect([await status('good1'), await status('good2'), await status('poison')]).toEqual(['ready', 'ready', 'pending']);
    expect(await ctx.backfill.runOnce()).toBe(0);
    expect(await status('poison')).toBe('pending');
    expect(await ctx.backfill.runOnce()).toBe(0);
    expect(await status('poison')).toBe('failed');
    expect([await status('good1'), await status('good2')]).toEqual(['ready', 'ready']);

    fake.reset();
    expect(await ctx.backfill.runOnce()).toBe(0);
    expect(fake.requests).toHaveLength(0);
    const hits = (await search(ctx, 'zanzibar')).body.items;
    expect(hits.map((h: { id: string }) => h.id)).toEqual([ids.poison]);

    // A restart (a new backfill) gives it another chance: the provider now takes it.
    const restarted = backfillWith(ctx.t, ctx.t.app.get(EMBEDDER), new ManualClock('2031-01-01T00:00:00.000Z'));
    expect(await restarted.runOnce()).toBe(1);
    expect(await status('poison')).toBe('ready');
  });

  it('are not charged when the provider refuses every text (400 to all): that is its configuration', async () => {
    fake.reset({ mode: 'down' });
    const id = (await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key: 'violin', content: 'Plays the violin' }).expect(201)).body.id;
    fake.reset({ mode: 'refuse' });
    for (let i = 0; i < 4; i++) expect(await ctx.backfill.runOnce()).toBe(0);
    expect((await memory(ctx, id)).body.embedding_status).toBe('pending');
    expect(await attemptsOf(ctx.t, id)).toBe(0);
    fake.reset();
    expect(await ctx.backfill.runOnce()).toBe(1);
  });
});

describe('a provider that refuses us whatever the text (bad key)', () => {
  const ctx = withApp({ EMBEDDINGS_WAIT_MS: '300', EMBEDDINGS_TIMEOUT_MS: '1000' });

  it('costs the memories nothing: once the key is fixed they are embedded', async () => {
    fake.reset({ mode: 'unauthorized' });
    const id = (await ctx.t.http().post('/v1/memory').set(asAgent(ctx.f)).send({ category: 'fact', key: 'k', content: 'Grows tomatoes' }).expect(201)).body.id;
    for (let i = 0; i < 4; i++) expect(await ctx.backfill.runOnce()).toBe(0);
    expect((await memory(ctx, id)).body.embedding_status).toBe('pending');
    expect(await attemptsOf(ctx.t, id)).toBe(0);
    fake.reset();
    expect(await ctx.backfill.runOnce()).toBe(1);
    expect((await memory(ctx, id)).body).toMatchObject({ embedding_status: 'ready', embedding_model: 'fake-embed-1' });
  });
});

describe('a change of embedding model', () => {
  let t: TestApp;
  let f: TenantFixture;
  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'model-change');
  });
  afterAll(() => t.close());

  it('re-embeds every memory with the new model, once', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'tea', content: 'Drinks genmaicha' }).expect(201);
    expect(created.body).toMatchObject({ embedding_status: 'ready', embedding_model: 'engram-hashing-768-v2', embedded_at: expect.any(String) });

    const hashing = new HashingEmbedder();
    const embedded: string[] = [];
    const other: Embedder = {
      model: 'other-model-v2',
      dimensions: 768,
      embed: async (texts) => {
        embedded.push(...texts);
        return hashing.embed(texts);
      },
    };
    const clock: Clock = new ManualClock('2031-02-03T04:05:06.000Z');
    const backfill = backfillWith(t, other, clock);

    expect(await backfill.runOnce()).toBe(1);
    expect(embedded).toEqual(['Drinks genmaicha']);
    const after = await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(200);
    expect(after.body).toMatchObject({ embedding_status: 'ready', embedding_model: 'other-model-v2', embedded_at: '2031-02-03T04:05:06.000Z' });

    expect(await backfill.runOnce()).toBe(0);
    expect(embedded).toHaveLength(1);
  });

  it('drops vectors of the old model at once (another space), leaving full text to find them until re-embedded', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'boat', content: 'Sails a wooden boat' }).expect(201);
    const down: Embedder = {
      model: 'third-model-v3',
      dimensions: 768,
      embed: async () => {
        throw new EmbeddingError('provider down', 'outage');
      },
    };
    expect(await backfillWith(t, down, new ManualClock('2031-02-03T04:05:06.000Z')).runOnce()).toBe(0);
    const waiting = await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(200);
    expect(waiting.body).toMatchObject({ embedding_status: 'pending', embedding_model: 'third-model-v3', embedded_at: null });
    const hits = await t.http().get('/v1/memory/search').query({ q: 'wooden boat', explain: 'true' }).set(asAgent(f)).expect(200);
    expect(hits.body.items[0]).toMatchObject({ id: created.body.id, explain: { vector: { rank: null } } });
  });
});

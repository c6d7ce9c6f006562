import { createServer } from 'node:net';
import { Client } from 'pg';
import { ManualClock, type Clock } from '@engram/config';
import { EmbeddingBackfillJob } from '@engram/jobs';
import { EmbeddingsRepository, TenantDb, TenantsRepository } from '@engram/db';
import { EMBEDDER, EmbeddingError, HashingEmbedder, OpenAiEmbedder, type Embedder, type OpenAiEmbedderOptions } from '@engram/embeddings';
import { FakeEmbeddingsServer } from './support/fake-embeddings-server';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

/** A backfill of its own (another process: its own model checks), with `embedder` and `clock`. */
function backfillWith(t: TestApp, embedder: Embedder, clock: Clock): EmbeddingBackfillJob {
  return new EmbeddingBackfillJob(t.app.get(TenantDb), t.app.get(EmbeddingsRepository), t.app.get(TenantsRepository), embedder, clock);
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const norm = (v: number[]) => Math.sqrt(dot(v, v));

let fake: FakeEmbeddingsServer;
beforeAll(async () => {
  fake = await new FakeEmbeddingsServer().start();
});
afterAll(() => fake.close());

/** The rejection of `promise`, failing the test when it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<EmbeddingError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddingError);
  return error as EmbeddingError;
}

describe('OpenAiEmbedder against an OpenAI-compatible endpoint', () => {
  const embedder = (options: Partial<OpenAiEmbedderOptions> = {}) =>
    new OpenAiEmbedder({ url: fake.url, model: 'fake-embed-1', batchSize: 64, timeoutMs: 2000, backoffMs: 5, ...options });
  const texts = ['the cat sat on the mat', 'rust borrow checker', 'espresso with oat milk', 'Berlin office address', 'quarterly tax filing'];

  it('sends batches of batchSize and answers one unit vector per text in input order, even when data comes shuffled', async () => {
    fake.reset({ shuffle: true });
    const vectors = await embedder({ batchSize: 2 }).embed(texts);
    expect(fake.requests.map((r) => r.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(fake.requests.every((r) => r.body.model === 'fake-embed-1')).toBe(true);
    const expected = await new HashingEmbedder().embed(texts);
    expect(vectors).toHaveLength(5);
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(768);
      expect(dot(v, expected[i] as number[])).toBeCloseTo(1, 6);
      if (i > 0) expect(dot(v, expected[i - 1] as number[])).toBeLessThan(0.9);
    });
  });

  it('L2-normalises vectors the endpoint answers unnormalised, keeping their direction', async () => {
    fake.reset({ vectorFor: (text) => Array.from({ length: 768 }, (_, i) => (i + 1) * text.length) });
    const v = (await embedder().embed(['abc']))[0] as number[];
    expect(norm(v)).toBeCloseTo(1, 9);
    expect((v[1] as number) / (v[0] as number)).toBeCloseTo(2, 9);
  });

  it('sends the API key as a bearer token, and no Authorization header without one', async () => {
    fake.reset();
    await embedder({ apiKey: 'sk-test-123' }).embed(['apple']);
    await embedder().embed(['banana']);
    expect(fake.requests.map((r) => r.authorization)).toEqual(['Bearer sk-test-123', undefined]);
  });

  it('asks for 768 dimensions (OpenAI text-embedding-3), unless told not to', async () => {
    fake.reset();
    await embedder().embed(['apple']);
    await embedder({ sendDimensions: false }).embed(['banana']);
    expect(fake.requests.map((r) => r.body)).toEqual([expect.objectContaining({ input: ['apple'], dimensions: 768 }), { model: expect.any(String), input: ['banana'] }]);
  });

  it.each([503, 500, 429])('retries %i with backoff and succeeds on the third request', async (status) => {
    fake.reset({ mode: 'fail-n-times-then-ok', failTimes: 2, failStatus: status });
    const vectors = await embedder().embed(['retry me']);
    expect(fake.requests).toHaveLength(3);
    expect(dot(vectors[0] as number[], new HashingEmbedder().embedOne('retry me'))).toBeCloseTo(1, 6);
  });

  it('gives up after `attempts` requests to a provider that stays down, with a transient EmbeddingError', async () => {
    fake.reset({ mode: 'down' });
    const error = await rejectionOf(embedder({ attempts: 4 }).embed(['x']));
    expect(error.transient).toBe(true);
    expect(error.message).toContain('503');
    expect(fake.requests).toHaveLength(4);
  });

  it('does not retry a refusal (400): one request, not transient', async () => {
    fake.reset({ mode: 'refuse' });
    const error = await rejectionOf(embedder().embed(['x']));
    expect(error.transient).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('rejects vectors of the wrong dimension, naming the 768 required', async () => {
    fake.reset({ mode: 'wrong-dims' });
    const error = await rejectionOf(embedder().embed(['x']));
    expect(error.message).toMatch(/512.*768/);
    expect(error.transient).toBe(false);
  });

  it('bounds each request by timeoutMs: a slow provider is a transient error mentioning the timeout', async () => {
    fake.reset({ mode: 'slow', slowMs: 3000 });
    const started = Date.now();
    const error = await rejectionOf(embedder({ timeoutMs: 150, attempts: 2 }).embed(['x']));
    expect(Date.now() - started).toBeLessThan(2500);
    expect(error.transient).toBe(true);
    // Plain Node says "timed out after 150 ms"; under jest the DOMException comes from another realm (see report).
    expect(error.message).toMatch(/timed out after 150 ms|TimeoutError/);
    expect(fake.requests).toHaveLength(2);
  });

  it('treats a body that stalls past the timeout as an outage, retried', async () => {
    fake.reset({ mode: 'stall-body', slowMs: 2000 });
    const error = await rejectionOf(embedder({ timeoutMs: 200, attempts: 2 }).embed(['x']));
    expect(error.reason).toBe('outage');
    expect(fake.requests).toHaveLength(2);
  });

  it('refuses a zero vector (no direction to compare), as configuration', async () => {
    fake.reset({ vectorFor: () => new Array(768).fill(0) });
    const error = await rejectionOf(embedder().embed(['apple']));
    expect(error).toMatchObject({ reason: 'config', message: expect.stringMatching(/zero vector/) });
  });

  it('treats a refused key (401) as configuration, not the texts: one request', async () => {
    fake.reset({ mode: 'unauthorized' });
    const error = await rejectionOf(embedder().embed(['x']));
    expect(error.reason).toBe('config');
    expect(fake.requests).toHaveLength(1);
  });

  it('treats an unreachable endpoint as transient', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const error = await rejectionOf(embedder({ url: `http://127.0.0.1:${port}/v1`, attempts: 2 }).embed(['x']));
    expect(error.transient).toBe(true);
    expect(error.message).toMatch(/unreachable/);
  });
});

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

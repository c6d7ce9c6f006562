import { createServer } from 'node:net';
import { EmbeddingError, HashingEmbedder, MAX_RETRY_AFTER_MS, OpenAiEmbedder, type OpenAiEmbedderOptions } from '@engram/embeddings';
import { FakeEmbeddingsServer } from './support/fake-embeddings-server';

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

  it('waits what Retry-After asks before retrying a 429 or 503, longer than its own backoff', async () => {
    fake.reset({ mode: 'fail-n-times-then-ok', failTimes: 1, failStatus: 429, retryAfter: '1' });
    await embedder().embed(['patience']);
    expect(fake.requests).toHaveLength(2);
    expect((fake.requests[1] as { at: number }).at - (fake.requests[0] as { at: number }).at).toBeGreaterThanOrEqual(950);
  });

  it('does not wait out a Retry-After beyond MAX_RETRY_AFTER_MS: one request, a transient error saying so', async () => {
    fake.reset({ mode: 'down', retryAfter: String(MAX_RETRY_AFTER_MS / 1000 + 50) });
    const started = Date.now();
    const error = await rejectionOf(embedder().embed(['x']));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toMatchObject({ reason: 'outage', message: expect.stringMatching(/503 \(Retry-After \d+ ms\)/) });
    expect(fake.requests).toHaveLength(1);
  });

  it("stops at the caller's signal: the request in flight, and the pause before a retry", async () => {
    fake.reset({ mode: 'slow', slowMs: 3000 });
    let started = Date.now();
    const slow = await rejectionOf(embedder({ timeoutMs: 5000 }).embed(['x'], AbortSignal.timeout(150)));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(slow).toMatchObject({ reason: 'outage', message: expect.stringMatching(/cancelled/) });

    fake.reset({ mode: 'down' });
    started = Date.now();
    const down = await rejectionOf(embedder({ backoffMs: 5000 }).embed(['x'], AbortSignal.timeout(150)));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(down.reason).toBe('outage');
    expect(fake.requests).toHaveLength(1);
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

import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createApp } from '../apps/api/src/create-app';
import { TEST_REDIS_URL } from './support/env';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// Edge protection: rate limits per Mind Key / user / client IP, CORS, security headers.
// Requests from supertest come from loopback, which Express trusts as a proxy: X-Forwarded-For
// gives each case a client IP of its own.

const PER_KEY = 5;
const PER_IP = 4;
const ALLOWED = 'https://app.example.com';

function expectTooMany(res: request.Response): void {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    statusCode: 429,
    error: 'Too Many Requests',
    message: expect.stringMatching(/^rate limit exceeded: \d+ requests per minute per .+; retry after \d+ s$/),
    requestId: expect.any(String),
  });
}

describe('edge protection (in-memory counts)', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(PER_KEY), RATE_LIMIT_IP_PER_MINUTE: String(PER_IP), CORS_ORIGINS: `${ALLOWED}, https://other.example.com` });
    // Each fixture: register (its IP bucket, loopback), then a mind and a key (its user's bucket).
    a = await createTenant(t, 'edge-a');
    b = await createTenant(t, 'edge-b');
  });
  afterAll(() => t.close());

  it('refuses a Mind Key over its limit with 429, Retry-After and the error shape; another key is unaffected', async () => {
    for (let i = 0; i < PER_KEY; i += 1) {
      const ok = await t.http().get('/v1/memory').set(asAgent(a));
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBe(String(PER_KEY));
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(PER_KEY - i - 1));
    }
    const refused = await t.http().get('/v1/memory').set(asAgent(a)).set('X-Request-Id', 'edge-429');
    expectTooMany(refused);
    expect(refused.body.requestId).toBe('edge-429');
    expect(refused.body.message).toContain('per Mind Key');
    // The limit is per key over every route, not per route.
    expectTooMany(await t.http().get('/v1/memory/recall').set(asAgent(a)));

    await t.http().get('/v1/memory').set(asAgent(b)).expect(200);
    // The owner's JWT is its own bucket (two requests used by the fixture).
    await t.http().get('/v1/minds').set('Authorization', `Bearer ${a.token}`).expect(200);
  });

  it('counts unauthenticated requests per client IP', async () => {
    const login = (ip: string) =>
      t.http().post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email: 'nobody@example.test', password: 'wrong password here' });
    for (let i = 0; i < PER_IP; i += 1) expect((await login('203.0.113.7')).status).toBe(401);
    const refused = await login('203.0.113.7');
    expectTooMany(refused);
    expect(refused.body.message).toContain('per client IP');
    expect((await login('203.0.113.8')).status).toBe(401);
    // Probes and scrapes are never limited.
    for (let i = 0; i < PER_IP + 2; i += 1) await t.http().get('/health/live').set('X-Forwarded-For', '203.0.113.7').expect(200);
  });

  it('answers CORS for the allowed origins only', async () => {
    const preflight = await t
      .http()
      .options('/v1/memory')
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type,x-mind-id');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Mind-Id/);
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();

    const simple = await t.http().get('/health/live').set('Origin', 'https://other.example.com').expect(200);
    expect(simple.headers['access-control-allow-origin']).toBe('https://other.example.com');
    expect(simple.headers['access-control-expose-headers']).toContain('Retry-After');

    const denied = await t.http().options('/v1/memory').set('Origin', 'https://evil.example.com').set('Access-Control-Request-Method', 'POST');
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
    const deniedGet = await t.http().get('/health/live').set('Origin', 'https://evil.example.com').expect(200);
    expect(deniedGet.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends security headers on API answers and on /docs, whose scripts come from self', async () => {
    const res = await t.http().get('/health/live').expect(200);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();

    const docs = await t.http().get('/docs').redirects(1).expect(200);
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    // Every script of the page is a file from the same origin: the CSP lets it run.
    const scripts = [...docs.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src=["'](?!https?:)/);
      expect((body ?? '').trim()).toBe('');
    }

    // An error answer carries them too.
    const unauthorized = await t.http().get('/v1/memory').expect(401);
    expect(unauthorized.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('edge protection off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' });
  });
  afterAll(() => t.close());

  it('answers no CORS without CORS_ORIGINS, and 0 turns the limits off', async () => {
    const res = await t.http().get('/health/live').set('Origin', ALLOWED).expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    for (let i = 0; i < PER_IP + 2; i += 1) {
      const r = await t.http().post('/v1/auth/login').set('X-Forwarded-For', '198.51.100.1').send({ email: 'nobody@example.test', password: 'wrong password here' });
      expect(r.status).toBe(401);
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('edge protection with REDIS_URL: counts shared by API instances', () => {
  let t: TestApp;
  let second: INestApplication;
  let f: TenantFixture;
  const prefix = `edge_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: String(PER_KEY), RATE_LIMIT_IP_PER_MINUTE: '50' });
    // A second API process on the same database and Redis (what a second replica is).
    second = await createApp(t.config);
    await second.init();
    f = await createTenant(t, 'edge-redis');
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
    // Leave nothing under the test's prefix (the queues' keys, the counts).
    const redis = new Redis(TEST_REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('refuses the key on either instance once their requests together reach the limit', async () => {
    const on = [t.app, second, t.app, second, t.app];
    for (const app of on) await request(app.getHttpServer()).get('/v1/memory').set(asAgent(f)).expect(200);
    expectTooMany(await request(second.getHttpServer()).get('/v1/memory').set(asAgent(f)));
    expectTooMany(await request(t.app.getHttpServer()).get('/v1/memory').set(asAgent(f)));
  });
});

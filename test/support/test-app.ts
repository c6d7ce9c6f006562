import { NO_RATE_LIMITS, NO_SCHEDULES } from './env';
import type { INestApplication } from '@nestjs/common';
import passport from 'passport';
import request from 'supertest';
import { loadConfig, type AppConfig, type Clock } from '@engram/config';
import { createApp } from '../../apps/api/src/create-app';
import { createTestDatabase, type TestDatabase } from './test-db';

export const TEST_JWT_SECRET = 'test-secret-0123456789-0123456789-abcdef';

/** The API on a fresh database of its own, not listening: requests go through supertest. */
export interface TestApp {
  app: INestApplication;
  db: TestDatabase;
  config: AppConfig;
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.appUrl,
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_MAX: '5',
    // Tests run periodic work themselves, when they mean to.
    ...NO_SCHEDULES,
    // Suites fire many requests at once; test/edge.test.ts turns the rate limits on with small values.
    ...NO_RATE_LIMITS,
    ...env,
  });
  // passport's strategies are process-wide: a second app's JwtStrategy replaces the first's, and
  // once that app closes, the first checked tokens over the closed app's database (503). Closing
  // an app gives the strategy back to the app that had it before.
  const strategyBefore = (passport as unknown as { _strategy(name: string): passport.Strategy | undefined })._strategy('jwt');
  const app = await createApp(config, { clock: options.clock });
  await app.init();
  const server = app.getHttpServer();
  return {
    app,
    db,
    config,
    http: () => request(server),
    close: async () => {
      await app.close();
      await db.drop();
      if (strategyBefore) passport.use('jwt', strategyBefore);
    },
  };
}

/** A registered tenant with its owner's token, one mind and a Mind Key of it. */
export interface TenantFixture {
  email: string;
  token: string;
  tenantId: string;
  userId: string;
  mindId: string;
  mindKey: string;
  mindKeyId: string;
}

let counter = 0;

/** Registers a tenant through the API, creates a mind and a key for it. */
export async function createTenant(t: TestApp, name = 'tenant'): Promise<TenantFixture> {
  counter += 1;
  const email = `${name}-${counter}-${Date.now()}@example.test`;
  const reg = await t.http().post('/v1/auth/register').send({ email, password: 'correct horse battery', tenant_name: name }).expect(201);
  const token: string = reg.body.token;
  const mind = await t.http().post('/v1/minds').set('Authorization', `Bearer ${token}`).send({ name: `${name} mind` }).expect(201);
  const key = await t.http().post(`/v1/minds/${mind.body.id}/keys`).set('Authorization', `Bearer ${token}`).send({}).expect(201);
  return {
    email,
    token,
    tenantId: reg.body.tenant.id,
    userId: reg.body.user.id,
    mindId: mind.body.id,
    mindKey: key.body.key,
    mindKeyId: key.body.id,
  };
}

/** Headers of a person acting on a mind. */
export function asUser(f: TenantFixture, mindId = f.mindId): Record<string, string> {
  return { Authorization: `Bearer ${f.token}`, 'X-Mind-Id': mindId };
}

/** Headers of the mind's agent. */
export function asAgent(f: TenantFixture): Record<string, string> {
  return { Authorization: `Bearer ${f.mindKey}` };
}

/** POST /v1/memory as the caller of `headers`; the status is left to the test, which may expect a 4xx. */
export function storeMemory(t: TestApp, headers: Record<string, string>, body: object) {
  return t.http().post('/v1/memory').set(headers).send(body);
}

/** GET /v1/tenant/export as the owner of `token`: the JSONL text (200 expected). */
export async function exportText(t: TestApp, token: string): Promise<{ text: string; contentType: string }> {
  const res = await t
    .http()
    .get('/v1/tenant/export')
    .set({ Authorization: `Bearer ${token}` })
    .buffer(true)
    .parse((response, done) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (data += chunk));
      response.on('end', () => done(null, data));
    })
    .expect(200);
  return { text: res.body as string, contentType: String(res.headers['content-type']) };
}

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { sign } from 'jsonwebtoken';
import { useBrowser } from './support/browser';
import { ALL_QUEUE_NAMES, JobName, QueueName } from '@engram/queues';
import { TEST_REDIS_URL } from './support/env';
import { createTenant, startTestApp, TEST_JWT_SECRET, type TenantFixture, type TestApp } from './support/test-app';

/** Debian's chromium (`apt-get install chromium`); scripts/test-services.sh checks it is there. */
const OPERATOR_TOKEN = `op-${randomBytes(24).toString('hex')}`;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const errorShape = (statusCode: number, error: string) => ({ statusCode, error, message: expect.any(String), requestId: expect.any(String) });

/** `name=value` of the session cookie from a Set-Cookie answer, and its attributes. */
function sessionCookie(setCookie: string[] | string | undefined): { pair: string; attributes: string[] } {
  const line = ([] as string[]).concat(setCookie ?? []).find((c) => c.startsWith('engram_admin='));
  if (!line) throw new Error(`no engram_admin cookie in ${JSON.stringify(setCookie)}`);
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { pair: pair as string, attributes };
}

/** Removes every key of the queues under `prefix` (the API's queue handles write their meta). */
async function obliterateQueues(prefix: string): Promise<void> {
  for (const name of ALL_QUEUE_NAMES) {
    const q = new Queue(name, { connection: { url: TEST_REDIS_URL }, prefix });
    await q.obliterate({ force: true });
    await q.close();
  }
}

// The BullMQ dashboard on the real Redis: operator-only (a tenant's JWT gets 403, since
// bull-board cannot narrow a queue to one tenant's jobs), sign-in by the operator token, and a
// real headless chromium that signs in and sees the queues.
describe('admin dashboard (bull-board at /admin/queues)', () => {
  let t: TestApp;
  let f: TenantFixture;
  const prefix = `engram-admin-test-${randomBytes(4).toString('hex')}`;
  const tiering = new Queue(QueueName.Tiering, { connection: { url: TEST_REDIS_URL }, prefix });

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, ENGRAM_OPERATOR_TOKEN: OPERATOR_TOKEN });
    f = await createTenant(t, 'admin');
    // Nothing consumes the queues in this test: the job waits where the dashboard can see it.
    await tiering.add(JobName.FanOut, {}, { jobId: 'dashboard-probe-job' });
  });

  afterAll(async () => {
    await t?.close();
    await obliterateQueues(prefix);
    await tiering.close();
  });

  it('answers 401 without credentials: JSON in the API error shape, the sign-in page for a browser', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/js/main.js']) {
      const res = await t.http().get(path).expect(401);
      expect(res.body).toEqual(errorShape(401, 'Unauthorized'));
      expect(res.body.message).toMatch(/operator token/);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    }
    const page = await t.http().get('/admin/queues').set('Accept', BROWSER_ACCEPT).expect(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post" action="/admin/login">');
    // bull-board's own API calls never get a page, even from a browser.
    await t.http().get('/admin/queues/api/queues').set('Accept', BROWSER_ACCEPT).expect('Content-Type', /json/).expect(401);
  });

  it('answers 401 for a wrong bearer, a JWT signed elsewhere and a forged session cookie', async () => {
    const wrong = await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN.slice(0, -1)}x`).expect(401);
    expect(wrong.body).toEqual(errorShape(401, 'Unauthorized'));
    const foreign = sign({ sub: f.userId, tid: f.tenantId }, 'another-secret-0123456789-0123456789', { issuer: 'engram', audience: 'engram-api' });
    await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${foreign}`).expect(401);
    const forged = `engram_admin=${Date.now() + 60_000}.${randomBytes(32).toString('base64url')}`;
    const res = await t.http().get('/admin/queues/api/queues').set('Cookie', forged).expect(401);
    expect(res.body.message).toMatch(/session/);
  });

  it('answers 403 to a tenant owner\'s JWT and to a Mind Key: the dashboard is operator-only', async () => {
    const owner = await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${f.token}`).expect(403);
    expect(owner.body).toEqual(errorShape(403, 'Forbidden'));
    expect(owner.body.message).toMatch(/platform operator only/);
    await t.http().get('/admin/queues').set('Authorization', `Bearer ${f.token}`).set('Accept', BROWSER_ACCEPT).expect(403);
    await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${f.mindKey}`).expect(403);
    // A valid JWT of ours, for a user that does not exist, proves nothing: 401.
    const ghost = sign({ sub: '00000000-0000-4000-8000-000000000000', tid: f.tenantId }, TEST_JWT_SECRET, { issuer: 'engram', audience: 'engram-api' });
    await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${ghost}`).expect(401);
  });

  it('opens to the operator token: the page, and the API listing the five queues with the waiting job', async () => {
    const auth = { Authorization: `Bearer ${OPERATOR_TOKEN}` };
    const page = await t.http().get('/admin/queues').set(auth).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const res = await t.http().get('/admin/queues/api/queues').set(auth).expect(200);
    const queues = res.body.queues as { name: string; counts: Record<string, number> }[];
    expect(queues.map((q) => q.name).sort()).toEqual([...ALL_QUEUE_NAMES].sort());
    expect(queues.find((q) => q.name === QueueName.Tiering)?.counts.waiting).toBe(1);
  });

  it('signs in with the token form: an HttpOnly, SameSite=Strict cookie for /admin that holds no token', async () => {
    const wrong = await t.http().post('/admin/login').type('form').send({ token: 'not the operator token at all, sorry' }).expect(401);
    expect(wrong.text).toContain('That is not the operator token.');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const ok = await t.http().post('/admin/login').type('form').send({ token: OPERATOR_TOKEN }).expect(303);
    expect(ok.headers.location).toBe('/admin/queues');
    const cookie = sessionCookie(ok.headers['set-cookie']);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['Path=/admin', 'HttpOnly', 'SameSite=Strict']));
    expect(cookie.pair).not.toContain(OPERATOR_TOKEN);
    const res = await t.http().get('/admin/queues/api/queues').set('Cookie', cookie.pair).expect(200);
    expect(res.body.queues).toHaveLength(ALL_QUEUE_NAMES.length);

    const out = await t.http().post('/admin/logout').set('Cookie', cookie.pair).expect(303);
    expect(sessionCookie(out.headers['set-cookie']).attributes).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    // A copy of the signed-out cookie no longer opens this process (revocation is per process).
    const replayed = await t.http().get('/admin/queues/api/queues').set('Cookie', cookie.pair).expect(401);
    expect(replayed.body.message).toMatch(/session/);
  });

  it('sets a 12-hour cookie, Secure only behind a TLS proxy (plain http on localhost must keep working)', async () => {
    const plain = sessionCookie((await t.http().post('/admin/login').type('form').send({ token: OPERATOR_TOKEN }).expect(303)).headers['set-cookie']);
    expect(plain.attributes).toContain('Max-Age=43200');
    expect(plain.attributes).not.toContain('Secure');
    const proxied = await t.http().post('/admin/login').set('X-Forwarded-Proto', 'https').type('form').send({ token: OPERATOR_TOKEN }).expect(303);
    expect(sessionCookie(proxied.headers['set-cookie']).attributes).toEqual(expect.arrayContaining(['Secure', 'Max-Age=43200', 'HttpOnly', 'SameSite=Strict', 'Path=/admin']));
    const out = await t.http().post('/admin/logout').set('X-Forwarded-Proto', 'https').set('Cookie', plain.pair).expect(303);
    expect(sessionCookie(out.headers['set-cookie']).attributes).toEqual(expect.arrayContaining(['Secure', 'Path=/admin', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT']));
  });

  it('signs in with JSON too: JSON errors for a script, 415 for any other body', async () => {
    const wrong = await t.http().post('/admin/login').send({ token: 'not the operator token at all, sorry' }).expect(401);
    expect(wrong.body).toEqual(errorShape(401, 'Unauthorized'));
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const missing = await t.http().post('/admin/login').send({ tok: OPERATOR_TOKEN }).expect(401);
    expect(missing.body.message).toMatch(/missing "token"/);

    const ok = await t.http().post('/admin/login').send({ token: OPERATOR_TOKEN }).expect(303);
    expect(ok.headers.location).toBe('/admin/queues');
    const cookie = sessionCookie(ok.headers['set-cookie']);
    await t.http().get('/admin/queues/api/queues').set('Cookie', cookie.pair).expect(200);

    const plain = await t.http().post('/admin/login').set('Content-Type', 'text/plain').send(OPERATOR_TOKEN).expect(415);
    expect(plain.body).toEqual(errorShape(415, 'Unsupported Media Type'));
    expect(plain.body.message).toMatch(/application\/json/);
  });

  describe('in a real headless chromium', () => {
    const served = useBrowser(() => t.app);

    it('meets the sign-in page, signs in with the token and sees every queue and the waiting job', async () => {
      const page = await served.browser().newPage();
      const first = await page.goto(`${served.base()}/admin/queues`);
      expect(first?.status()).toBe(401);
      await page.getByLabel('Operator token').fill(OPERATOR_TOKEN);
      await Promise.all([page.waitForURL(`${served.base()}/admin/queues`), page.getByRole('button', { name: 'Sign in' }).click()]);

      await page.getByText('consolidation', { exact: true }).first().waitFor();
      await page.getByText('forgetting', { exact: true }).first().waitFor();
      const overview = await page.locator('body').innerText();
      for (const name of ALL_QUEUE_NAMES) expect(overview).toContain(name);

      await page.goto(`${served.base()}/admin/queues/queue/${QueueName.Tiering}?status=waiting`);
      await page.getByText('dashboard-probe-job').first().waitFor();
      await page.close();
    });
  });
});

describe('admin dashboard without REDIS_URL (embedded mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ENGRAM_OPERATOR_TOKEN: OPERATOR_TOKEN });
  });
  afterAll(() => t?.close());

  it('still answers 401 without credentials, then tells the operator the dashboard needs REDIS_URL', async () => {
    await t.http().get('/admin/queues').expect(401);
    const res = await t.http().get('/admin/queues').set('Authorization', `Bearer ${OPERATOR_TOKEN}`).expect(404);
    expect(res.body).toEqual(errorShape(404, 'Not Found'));
    expect(res.body.message).toMatch(/needs REDIS_URL/);
  });
});

/** A TCP port nothing listens on (taken from the OS, then released). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Redis down must cost the operator the dashboard only: a 503 that names Redis, never a crash of
// the API (BullMQ queues whose first connection failed used to leave an unhandled rejection).
describe('admin dashboard with Redis unreachable', () => {
  let t: TestApp;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => void rejections.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${await unusedPort()}`, ENGRAM_OPERATOR_TOKEN: OPERATOR_TOKEN });
  });
  afterAll(async () => {
    await t?.close();
    process.off('unhandledRejection', onRejection);
  });

  it('answers 503 naming Redis, and the API keeps answering', async () => {
    const auth = { Authorization: `Bearer ${OPERATOR_TOKEN}` };
    for (const path of ['/admin/queues/api/queues', '/admin/queues']) {
      const res = await t.http().get(path).set(auth).expect(503);
      expect(res.body).toEqual(errorShape(503, 'Service Unavailable'));
      expect(res.body.message).toMatch(/cannot reach Redis \(REDIS_URL, 127\.0\.0\.1:\d+\)/);
      expect(res.headers['retry-after']).toBeDefined();
    }
    // Credentials are still checked first.
    await t.http().get('/admin/queues/api/queues').expect(401);
    // Long enough for a few reconnect attempts (and the old crash) to happen.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await t.http().get('/admin/queues/api/queues').set(auth).expect(503);
    await t.http().get('/health/live').expect(200);
    expect(rejections).toEqual([]);
  });
});

describe('admin dashboard without ENGRAM_OPERATOR_TOKEN', () => {
  let t: TestApp;
  const prefix = `engram-admin-closed-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix });
  });
  afterAll(async () => {
    await t?.close();
    await obliterateQueues(prefix);
  });

  it('is closed to everyone, and says why', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/login']) {
      const res = await t.http().get(path).expect(404);
      expect(res.body.message).toMatch(/closed: ENGRAM_OPERATOR_TOKEN is not set/);
    }
    await t.http().post('/admin/login').type('form').send({ token: OPERATOR_TOKEN }).expect(404);
  });
});

import { sign } from 'jsonwebtoken';
import { createTenant, startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';

describe('auth: register, login, JWT', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('register creates a tenant and its owner and answers {token, user, tenant}', async () => {
    const res = await t
      .http()
      .post('/v1/auth/register')
      .send({ email: 'Owner@Example.test', password: 'long enough secret', tenant_name: 'Acme' })
      .expect(201);
    expect(res.body).toEqual({
      token: expect.any(String),
      user: { id: expect.any(String), tenant_id: res.body.tenant.id, email: 'Owner@Example.test', role: 'owner', created_at: expect.any(String) },
      tenant: { id: expect.any(String), name: 'Acme', created_at: expect.any(String) },
    });
    const me = await t.http().get('/v1/auth/me').set('Authorization', `Bearer ${res.body.token}`).expect(200);
    expect(me.body.user.id).toBe(res.body.user.id);
  });

  it('an e-mail registers once (case-insensitively): 409', async () => {
    await t.http().post('/v1/auth/register').send({ email: 'dup@example.test', password: 'long enough secret', tenant_name: 'One' }).expect(201);
    const again = await t
      .http()
      .post('/v1/auth/register')
      .send({ email: 'DUP@example.test', password: 'long enough secret', tenant_name: 'Two' })
      .expect(409);
    expect(again.body.message).toMatch(/^email: /);
  });

  it('login answers {token} for the right password and one 401 message otherwise', async () => {
    await t.http().post('/v1/auth/register').send({ email: 'login@example.test', password: 'right password', tenant_name: 'L' }).expect(201);
    const ok = await t.http().post('/v1/auth/login').send({ email: 'LOGIN@example.test', password: 'right password' }).expect(200);
    expect(Object.keys(ok.body)).toEqual(['token']);
    const wrong = await t.http().post('/v1/auth/login').send({ email: 'login@example.test', password: 'wrong password' }).expect(401);
    const unknown = await t.http().post('/v1/auth/login').send({ email: 'nobody@example.test', password: 'wrong password' }).expect(401);
    expect(wrong.body.message).toBe(unknown.body.message);
  });

  it.each([
    [{ email: 'not-an-email', password: 'long enough', tenant_name: 'X' }, 'email'],
    [{ email: 'a@example.test', password: 'short', tenant_name: 'X' }, 'password'],
    [{ email: 'b@example.test', password: 'long enough', tenant_name: '   ' }, 'tenant_name'],
    [{ email: 'c@example.test', password: 'long enough' }, 'tenant_name'],
    [{ email: 'd@example.test', password: 'long enough', tenant_name: 'X', role: 'admin' }, 'role'],
  ])('register rejects %j naming %s', async (body, field) => {
    const res = await t.http().post('/v1/auth/register').send(body).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(res.body.message).toContain(`${field}: `);
    expect(res.body.requestId).toEqual(expect.any(String));
  });

  describe('tokens', () => {
    let owner: Awaited<ReturnType<typeof createTenant>>;
    beforeAll(async () => {
      owner = await createTenant(t, 'tokens');
    });

    const claims = () => ({ sub: owner.userId, tid: owner.tenantId });
    const opts = { issuer: 'engram', audience: 'engram-api', expiresIn: 600 } as const;
    const get = (token: string) => t.http().get('/v1/minds').set('Authorization', `Bearer ${token}`);

    it('accepts a token it signed', async () => {
      await get(sign(claims(), TEST_JWT_SECRET, { ...opts, algorithm: 'HS256' })).expect(200);
    });

    it.each([
      ['expired', () => sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, { issuer: 'engram', audience: 'engram-api' })],
      ['signed with another secret', () => sign(claims(), 'another-secret-another-secret-another', opts)],
      ['from another issuer', () => sign(claims(), TEST_JWT_SECRET, { ...opts, issuer: 'evil' })],
      ['for another audience', () => sign(claims(), TEST_JWT_SECRET, { ...opts, audience: 'other' })],
      ['unsigned (alg none)', () => sign(claims(), '', { ...opts, algorithm: 'none' })],
      ['without a tenant claim', () => sign({ sub: owner.userId }, TEST_JWT_SECRET, opts)],
      ['for a user id of no one', () => sign({ ...claims(), sub: '01a22895-c86e-7310-8c55-f345f5cdfafa' }, TEST_JWT_SECRET, opts)],
      ['garbage', () => 'not.a.jwt'],
    ])('answers 401 to a token %s', async (_label, make) => {
      const res = await get(make()).expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    });

    it('answers 401 without credentials', async () => {
      await t.http().get('/v1/minds').expect(401);
      await t.http().get('/v1/minds').set('Authorization', 'Basic abc').expect(401);
    });

    it('a token whose tenant claim was tampered with finds no user: 401, not another tenant', async () => {
      const other = await createTenant(t, 'victim');
      const forged = sign({ sub: owner.userId, tid: other.tenantId }, TEST_JWT_SECRET, opts);
      await get(forged).expect(401);
    });
  });
});

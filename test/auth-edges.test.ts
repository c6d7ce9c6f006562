import { createHmac } from 'node:crypto';
import type { Response } from 'supertest';
import { ownerQuery } from './support/test-db';
import { createTenant, startTestApp, TEST_JWT_SECRET, type TenantFixture, type TestApp } from './support/test-app';
import { listRoutes, type Route } from './support/routes';

// Issue 8, item 2: the edges of JWT authentication. Tokens are minted here with node:crypto, byte
// by byte, so a test can keep a signature while changing the payload, or leave the signature out.

const b64 = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const hmac = (alg: 'HS256' | 'HS384' | 'HS512', input: string, secret: string) =>
  createHmac(`sha${alg.slice(2)}`, secret).update(input).digest('base64url');

/** A compact JWS: header and payload as given, signed with `secret` by `alg` (HS*). */
function mint(payload: object, options: { alg?: 'HS256' | 'HS384' | 'HS512'; secret?: string; header?: object } = {}): string {
  const alg = options.alg ?? 'HS256';
  const input = `${b64(options.header ?? { alg, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${hmac(alg, input, options.secret ?? TEST_JWT_SECRET)}`;
}

/** The token with its payload replaced and its header and signature kept. */
function tamper(token: string, change: (claims: Record<string, unknown>) => Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${b64(change(claims))}.${signature}`;
}

const MISSING = '01a22895-c86e-7310-8c55-f345f5cdfafa';

describe('auth edges: every bad JWT answers 401 in the API error shape', () => {
  let t: TestApp;
  let owner: TenantFixture;
  let other: TenantFixture;
  let iss = '';
  let aud = '';
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    t = await startTestApp();
    iss = t.config.JWT_ISSUER;
    aud = t.config.JWT_AUDIENCE;
    owner = await createTenant(t, 'edges');
    other = await createTenant(t, 'edges-other');
  });
  afterAll(() => t?.close());

  const claims = (extra: Record<string, unknown> = {}) => ({ sub: owner.userId, tid: owner.tenantId, iss, aud, iat: now(), exp: now() + 600, ...extra });
  const valid = () => mint(claims());

  const expect401 = (res: Response, label: string) => {
    expect({ label, status: res.status }).toEqual({ label, status: 401 });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String), requestId: expect.any(String) });
    expect(res.body.message).not.toContain(TEST_JWT_SECRET);
  };

  it('the control: a token minted here with the right secret, issuer and audience is accepted', async () => {
    await t.http().get('/v1/auth/me').set('Authorization', `Bearer ${valid()}`).expect(200);
    await t.http().get('/v1/memory').set({ Authorization: `Bearer ${valid()}`, 'X-Mind-Id': owner.mindId }).expect(200);
  });

  const cases: Array<[string, () => string]> = [
    ['expired', () => mint(claims({ iat: now() - 7200, exp: now() - 3600 }))],
    ['expired a second ago', () => mint(claims({ iat: now() - 600, exp: now() - 1 }))],
    ['no exp claim (it would never expire)', () => mint(claims({ exp: undefined }))],
    ['not valid yet (nbf in the future)', () => mint(claims({ nbf: now() + 3600 }))],
    ['alg none, no signature', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
    ['alg none, signature left on', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.${valid().split('.')[2]}`],
    ['alg "None" (case variant), no signature', () => `${b64({ alg: 'None', typ: 'JWT' })}.${b64(claims())}.`],
    ['alg none, no signature part at all', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}`],
    ['HS512 with the right secret (only HS256 is allowed)', () => mint(claims(), { alg: 'HS512' })],
    ['HS384 with the right secret', () => mint(claims(), { alg: 'HS384' })],
    ['RS256 in the header, HMAC of the secret as signature (alg confusion)', () => mint(claims(), { header: { alg: 'RS256', typ: 'JWT' } })],
    ['signed with another secret', () => mint(claims(), { secret: 'another-secret-another-secret-another-secret' })],
    ['signed with the secret plus one character', () => mint(claims(), { secret: `${TEST_JWT_SECRET}x` })],
    ['with the signature stripped', () => `${valid().split('.').slice(0, 2).join('.')}.`],
    ['with a signature of zeros', () => `${valid().split('.').slice(0, 2).join('.')}.${Buffer.alloc(32).toString('base64url')}`],
    ['from another issuer', () => mint(claims({ iss: 'evil' }))],
    ['without an issuer', () => mint(claims({ iss: undefined }))],
    ['for another audience', () => mint(claims({ aud: 'other-api' }))],
    ['without an audience', () => mint(claims({ aud: undefined }))],
    ["tampered: tenant claim set to another tenant's, signature kept", () => tamper(valid(), (c) => ({ ...c, tid: other.tenantId }))],
    ["tampered: user claim set to another tenant's owner, signature kept", () => tamper(valid(), (c) => ({ ...c, sub: other.userId, tid: other.tenantId }))],
    ['tampered: an expired token given a new expiry, signature kept', () => tamper(mint(claims({ exp: now() - 60 })), (c) => ({ ...c, exp: now() + 3600 }))],
    ['tampered: a role claim added, signature kept', () => tamper(valid(), (c) => ({ ...c, role: 'owner' }))],
    ['tampered header: alg switched to none, signature kept', () => {
      const [, payload, signature] = valid().split('.');
      return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`;
    }],
    ['without the tenant claim', () => mint(claims({ tid: undefined }))],
    ['with a tenant claim that is not a UUID', () => mint(claims({ tid: 'tenant-1' }))],
    ['with the tenant claim of another tenant (a correctly signed token)', () => mint(claims({ tid: other.tenantId }))],
    ['without the user claim', () => mint(claims({ sub: undefined }))],
    ['for a user id of no one', () => mint(claims({ sub: MISSING }))],
    ['with claims that are not an object', () => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64('"just a string"')}`;
      return `${input}.${hmac('HS256', input, TEST_JWT_SECRET)}`;
    }],
    ['garbage in three parts', () => 'abc.def.ghi'],
  ];

  it.each(cases)('a token %s → 401 on /v1/auth/me, a mind list and a memory read', async (label, make) => {
    const token = make();
    expect401(await t.http().get('/v1/auth/me').set('Authorization', `Bearer ${token}`), `${label}: me`);
    expect401(await t.http().get('/v1/minds').set('Authorization', `Bearer ${token}`), `${label}: minds`);
    expect401(await t.http().get('/v1/memory').set({ Authorization: `Bearer ${token}`, 'X-Mind-Id': owner.mindId }), `${label}: memory`);
  });

  it('every bad token answers 401 on every authenticated route of the router table', async () => {
    const isPublic = (r: Route) =>
      ['post /v1/auth/register', 'post /v1/auth/login', 'get /health/live', 'get /health/ready', 'get /metrics'].includes(`${r.method} ${r.path}`) ||
      /^\/docs(\/|-json$|-yaml$|$)/.test(r.path) ||
      r.path.includes('{*path}');
    const routes = listRoutes(t.app).filter((r) => !isPublic(r));
    expect(routes.length).toBeGreaterThanOrEqual(25);
    const wrong: string[] = [];
    for (const [label, make] of cases) {
      const token = make();
      for (const route of routes) {
        const path = route.path.replace(/:(\w+)/g, (_m, p: string) => (p === 'conversationId' ? 'conv-1' : p === 'id' && route.path.startsWith('/v1/minds/') ? owner.mindId : MISSING));
        const res = await t.http()[route.method](path).set({ Authorization: `Bearer ${token}`, 'X-Mind-Id': owner.mindId });
        if (res.status !== 401 || res.body?.statusCode !== 401 || typeof res.body?.requestId !== 'string') wrong.push(`${label}: ${route.method} ${route.path} → ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a token of a user whose row was deleted → 401, though its signature and claims are valid', async () => {
    const gone = await createTenant(t, 'edges-gone');
    await t.http().get('/v1/auth/me').set('Authorization', `Bearer ${gone.token}`).expect(200);
    const deleted = await ownerQuery(t.db)<{ id: string }>('delete from users where tenant_id = $1 and id = $2 returning id', [gone.tenantId, gone.userId]);
    expect(deleted).toHaveLength(1);
    expect401(await t.http().get('/v1/auth/me').set('Authorization', `Bearer ${gone.token}`), 'deleted user: me');
    expect401(await t.http().get('/v1/minds').set('Authorization', `Bearer ${gone.token}`), 'deleted user: minds');
    expect401(await t.http().get('/v1/memory').set({ Authorization: `Bearer ${gone.token}`, 'X-Mind-Id': gone.mindId }), 'deleted user: memory');
    expect401(await t.http().post('/v1/minds').set('Authorization', `Bearer ${gone.token}`).send({ name: 'after deletion' }), 'deleted user: create mind');
    // The mind and its key are the tenant's, not the user's: the agent keeps working.
    await t.http().get('/v1/memory').set('Authorization', `Bearer ${gone.mindKey}`).expect(200);
  });

  it("a token whose user was demoted keeps working but with the database's role, not the token's", async () => {
    const demoted = await createTenant(t, 'edges-demoted');
    await ownerQuery(t.db)('update users set role = $3 where tenant_id = $1 and id = $2', [demoted.tenantId, demoted.userId, 'member']);
    const forged = mint({ sub: demoted.userId, tid: demoted.tenantId, iss, aud, exp: now() + 600, role: 'owner' });
    const res = await t.http().post('/v1/minds').set('Authorization', `Bearer ${forged}`).send({ name: 'by a member' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.any(String), requestId: expect.any(String) });
  });

  it.each([
    ['no Authorization header', undefined],
    ['an empty Bearer', 'Bearer '],
    ['Basic credentials', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['two tokens', () => `Bearer ${mint(claims())} ${mint(claims())}`],
    ['a JWT as a Mind Key (emk_ prefix)', () => `Bearer emk_${mint(claims())}`],
  ] as Array<[string, string | undefined | (() => string)]>)('%s → 401 in the error shape', async (_label, header) => {
    const value = typeof header === 'function' ? header() : header;
    const req = t.http().get('/v1/minds');
    expect401(await (value === undefined ? req : req.set('Authorization', value)), String(_label));
  });
});

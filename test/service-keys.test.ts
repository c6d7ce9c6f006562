import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { createApp } from '../apps/api/src/create-app';
import { NO_RATE_LIMITS, NO_SCHEDULES } from './support/env';
import { asAgent, asUser, createTenant, exportText, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// Issue 18, item 1: a SaaS backend provisions its end users' memories with one tenant service
// key: one mind per end user by the SaaS's own user id, then memories written and read on any
// mind of the tenant, within the key's scopes, with honest provenance.

const ALL = ['minds:manage', 'memories:read', 'memories:write'];
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe('tenant service keys and external-id minds', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let full: { id: string; key: string };

  const issue = async (f: TenantFixture, scopes: string[], name = 'backend') =>
    (await t.http().post('/v1/service-keys').set(bearer(f.token)).send({ name, scopes }).expect(201)).body as { id: string; key: string; scopes: string[] };

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t, 'saas-a');
    b = await createTenant(t, 'saas-b');
    full = await issue(a, ALL, 'full');
  });
  afterAll(() => t.close());

  describe('issuing', () => {
    it('an owner issues a key shown once; the listing has no secret; revoking makes it 401', async () => {
      const res = await t.http().post('/v1/service-keys').set(bearer(a.token)).send({ name: 'ci', scopes: ['memories:read'] }).expect(201);
      expect(res.body).toMatchObject({ name: 'ci', scopes: ['memories:read'], revoked_at: null, last_used_at: null });
      expect(res.body.key).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
      expect(res.body.key_prefix).toBe(res.body.key.slice(0, 10));

      const list = await t.http().get('/v1/service-keys').set(bearer(a.token)).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(res.body.key);
      expect(list.body.items.map((k: { id: string }) => k.id)).toContain(res.body.id);

      await t.http().get('/v1/memory').set({ ...bearer(res.body.key), 'X-Mind-Id': a.mindId }).expect(200);
      const used = (await t.http().get('/v1/service-keys').set(bearer(a.token)).expect(200)).body.items.find((k: { id: string }) => k.id === res.body.id);
      expect(used.last_used_at).not.toBeNull();

      await t.http().delete(`/v1/service-keys/${res.body.id}`).set(bearer(a.token)).expect(204);
      await t.http().delete(`/v1/service-keys/${res.body.id}`).set(bearer(a.token)).expect(204);
      const after = await t.http().get('/v1/memory').set({ ...bearer(res.body.key), 'X-Mind-Id': a.mindId }).expect(401);
      expect(after.body.message).toMatch(/revoked/);
    });

    it('pages the listing newest first', async () => {
      const c = await createTenant(t, 'saas-pages');
      const ids = [];
      for (let i = 0; i < 3; i += 1) ids.push((await issue(c, ['memories:read'], `k${i}`)).id);
      const first = await t.http().get('/v1/service-keys').query({ limit: 2 }).set(bearer(c.token)).expect(200);
      expect(first.body.items.map((k: { id: string }) => k.id)).toEqual([ids[2], ids[1]]);
      const second = await t.http().get('/v1/service-keys').query({ limit: 2, cursor: first.body.next_cursor }).set(bearer(c.token)).expect(200);
      expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    });

    it('bad scopes and names are 400s naming the field', async () => {
      const bad = async (body: object, field: string) => {
        const res = await t.http().post('/v1/service-keys').set(bearer(a.token)).send(body).expect(400);
        expect(res.body.errors?.[0]?.field ?? res.body.message).toContain(field);
      };
      await bad({ name: 'x', scopes: ['admin'] }, 'scopes');
      await bad({ name: 'x', scopes: [] }, 'scopes');
      await bad({ name: 'x', scopes: ['memories:read', 'memories:read'] }, 'scopes');
      await bad({ scopes: ['memories:read'] }, 'name');
      await bad({ name: 'x', scopes: ['memories:read'], tenant_id: b.tenantId }, 'tenant_id');
    });

    it('only owners and admins issue keys; a Mind Key or a service key cannot; another tenant\'s key id is 404', async () => {
      await t.http().post('/v1/service-keys').set(asAgent(a)).send({ name: 'x', scopes: ALL }).expect(403);
      await t.http().post('/v1/service-keys').set(bearer(full.key)).send({ name: 'x', scopes: ALL }).expect(403);
      await t.http().get('/v1/service-keys').set(bearer(full.key)).expect(403);
      const foreign = await t.http().delete(`/v1/service-keys/${full.id}`).set(bearer(b.token)).expect(404);
      const missing = await t.http().delete('/v1/service-keys/01a22895-c86e-7310-8c55-f345f5cdfafa').set(bearer(b.token)).expect(404);
      expect(foreign.body.message).toBe(missing.body.message);
      // Still A's and still working.
      await t.http().get('/v1/minds').set(bearer(full.key)).expect(200);
    });
  });

  describe('end-user minds by external id', () => {
    it('PUT gets or creates: 201 then 200 with the same mind, found by ?external_id=', async () => {
      const created = await t.http().put('/v1/minds/by-external-id/user_42').set(bearer(full.key)).send({ description: 'SaaS user 42' }).expect(201);
      expect(created.body).toMatchObject({ name: 'user_42', external_id: 'user_42', description: 'SaaS user 42' });
      const again = await t.http().put('/v1/minds/by-external-id/user_42').set(bearer(full.key)).send({ description: 'ignored' }).expect(200);
      expect(again.body).toEqual(created.body);
      const found = await t.http().get('/v1/minds').query({ external_id: 'user_42' }).set(bearer(full.key)).expect(200);
      expect(found.body.items).toEqual([created.body]);
      // A person sees the same mind.
      expect((await t.http().get(`/v1/minds/${created.body.id}`).set(bearer(a.token)).expect(200)).body.external_id).toBe('user_42');
    });

    it('concurrent PUTs for one external id make one mind', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => t.http().put('/v1/minds/by-external-id/auth0%7Crace').set(bearer(full.key)).send({})));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
      expect(answers[0]!.body.external_id).toBe('auth0|race');
    });

    it('the same external id in another tenant is another mind', async () => {
      const keyB = await issue(b, ['minds:manage']);
      const inA = await t.http().put('/v1/minds/by-external-id/shared-user').set(bearer(full.key)).send({}).expect(201);
      const inB = await t.http().put('/v1/minds/by-external-id/shared-user').set(bearer(keyB.key)).send({}).expect(201);
      expect(inB.body.id).not.toBe(inA.body.id);
      await t.http().get(`/v1/minds/${inA.body.id}`).set(bearer(keyB.key)).expect(404);
    });

    it('a taken name is a 409 naming name; a bad external id a 400 naming externalId', async () => {
      await t.http().post('/v1/minds').set(bearer(a.token)).send({ name: 'taken-name' }).expect(201);
      const conflict = await t.http().put('/v1/minds/by-external-id/other-user').set(bearer(full.key)).send({ name: 'taken-name' }).expect(409);
      expect(conflict.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
      const dup = await t.http().post('/v1/minds').set(bearer(a.token)).send({ name: 'fresh', external_id: 'user_42' }).expect(409);
      expect(dup.body.errors).toEqual([expect.objectContaining({ field: 'external_id' })]);
      // %2E%2E: `..` arrives only percent-encoded (clients remove dot segments), and could never be reached again.
      for (const bad of [encodeURIComponent('tab\there'), 'x'.repeat(201), '%20padded', '%2E%2E', '%2E', encodeURIComponent('line\u2028break'), encodeURIComponent('rtl\u202Eoverride')]) {
        const res = await t.http().put(`/v1/minds/by-external-id/${bad}`).set(bearer(full.key)).send({}).expect(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field: 'externalId' })]);
      }
      const unknownField = await t.http().put('/v1/minds/by-external-id/ok-user').set(bearer(full.key)).send({ tenant_id: b.tenantId }).expect(400);
      expect(unknownField.body.message).toContain('tenant_id');
    });

    it('a tenant export carries external ids, and an import matches minds by them', async () => {
      const src = await createTenant(t, 'saas-export');
      const srcKey = await issue(src, ALL);
      const mind = (await t.http().put('/v1/minds/by-external-id/exported-user').set(bearer(srcKey.key)).send({ name: 'Exported user' }).expect(201)).body;
      await t.http().post('/v1/memory').set({ ...bearer(srcKey.key), 'X-Mind-Id': mind.id }).send({ category: 'fact', key: 'user_city', content: 'Lives in Lyon' }).expect(201);
      const { text } = await exportText(t, src.token);
      expect(text).toContain('"external_id":"exported-user"');

      // The target already has a mind for that user under another id and name: it is matched, not doubled.
      const dst = await createTenant(t, 'saas-import');
      const dstKey = await issue(dst, ALL);
      const existing = (await t.http().put('/v1/minds/by-external-id/exported-user').set(bearer(dstKey.key)).send({ name: 'Renamed' }).expect(201)).body;
      const result = await t.http().post('/v1/tenant/import').set(bearer(dst.token)).set('Content-Type', 'application/x-ndjson').send(text).expect(200);
      expect(result.body.minds.matched).toBeGreaterThanOrEqual(1);
      const listed = await t.http().get('/v1/minds').query({ external_id: 'exported-user' }).set(bearer(dstKey.key)).expect(200);
      expect(listed.body.items.map((m: { id: string }) => m.id)).toEqual([existing.id]);
      const memories = await t.http().get('/v1/memory').set({ ...bearer(dstKey.key), 'X-Mind-Id': existing.id }).expect(200);
      expect(memories.body.items.map((m: { content: string }) => m.content)).toContain('Lives in Lyon');
    });

    it('a service key may delete an end user\'s mind with everything in it', async () => {
      const mind = (await t.http().put('/v1/minds/by-external-id/leaving-user').set(bearer(full.key)).send({}).expect(201)).body;
      await t.http().post('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': mind.id }).send({ category: 'fact', key: 'k', content: 'soon gone' }).expect(201);
      await t.http().delete(`/v1/minds/${mind.id}`).set(bearer(full.key)).expect(204);
      await t.http().get('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': mind.id }).expect(404);
      expect((await t.http().get('/v1/minds').query({ external_id: 'leaving-user' }).set(bearer(full.key)).expect(200)).body.items).toEqual([]);
    });
  });

  describe('memories through a service key', () => {
    it('writes as an agent on the named mind: source agent, unverified, versions record the key', async () => {
      const mind = (await t.http().put('/v1/minds/by-external-id/writer-user').set(bearer(full.key)).send({}).expect(201)).body;
      const as = { ...bearer(full.key), 'X-Mind-Id': mind.id };
      const written = await t.http().post('/v1/memory').set(as).send({ category: 'fact', key: 'user_employer', content: 'The user works at Acme as a software engineer' }).expect(201);
      expect(written.body).toMatchObject({ source: 'agent', verified: false, mind_id: mind.id });
      const claimed = await t.http().post('/v1/memory').set(as).send({ category: 'fact', key: 'claim', content: 'x', source: 'user' }).expect(400);
      expect(claimed.body.message).toContain('source');
      const history = await t.http().get(`/v1/memory/${written.body.id}/history`).set(as).expect(200);
      expect(history.body.items[0]).toMatchObject({ actor_type: 'service_key', actor_id: full.id });
      // Only a person verifies.
      await t.http().post(`/v1/memory/${written.body.id}/verify`).set(as).expect(403);

      const search = await t.http().get('/v1/memory/search').query({ q: 'where does the user work' }).set(as).expect(200);
      expect(search.body.items[0]?.id).toBe(written.body.id);
      expect((await t.http().get('/v1/memory/recall').set(as).expect(200)).text).toContain('Acme');
      const msgs = await t.http().post('/v1/conversations/chat-1/messages').set(as).send({ messages: [{ content: 'I just moved to Busan', speaker: 'user' }] }).expect(201);
      expect(msgs.body).toBeDefined();
      // Nothing leaked into the tenant's other mind.
      const other = await t.http().get('/v1/memory').set(asUser(a)).expect(200);
      expect(other.body.items.map((m: { id: string }) => m.id)).not.toContain(written.body.id);
    });

    it('X-Mind-Id is required; a malformed one is 400; another tenant\'s mind is 404 like a missing one', async () => {
      const none = await t.http().get('/v1/memory').set(bearer(full.key)).expect(400);
      expect(none.body.errors).toEqual([expect.objectContaining({ field: 'X-Mind-Id' })]);
      await t.http().get('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': 'user_42' }).expect(400);
      const foreign = await t.http().get('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': b.mindId }).expect(404);
      const missing = await t.http().get('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': '01a22895-c86e-7310-8c55-f345f5cdfafa' }).expect(404);
      expect(foreign.body.message).toBe(missing.body.message);
      const write = await t.http().post('/v1/memory').set({ ...bearer(full.key), 'X-Mind-Id': b.mindId }).send({ category: 'fact', key: 'planted', content: 'from A' }).expect(404);
      expect(write.body.message).toBe(missing.body.message);
      expect((await t.http().get('/v1/memory').set(asUser(b)).expect(200)).body.items).toEqual([]);
    });

    it('scopes are enforced: 403 naming the missing scope', async () => {
      const reader = await issue(a, ['memories:read']);
      const as = { ...bearer(reader.key), 'X-Mind-Id': a.mindId };
      await t.http().get('/v1/memory/search').query({ q: 'anything' }).set(as).expect(200);
      const write = await t.http().post('/v1/memory').set(as).send({ category: 'fact', key: 'k', content: 'c' }).expect(403);
      expect(write.body.message).toContain('memories:write');
      await t.http().post('/v1/conversations/c/messages').set(as).send({ messages: [{ content: 'hi' }] }).expect(403);
      const mind = await t.http().put('/v1/minds/by-external-id/someone').set(bearer(reader.key)).send({}).expect(403);
      expect(mind.body.message).toContain('minds:manage');
      const writer = await issue(a, ['memories:write']);
      await t.http().get('/v1/memory').set({ ...bearer(writer.key), 'X-Mind-Id': a.mindId }).expect(403);
      await t.http().post('/v1/memory').set({ ...bearer(writer.key), 'X-Mind-Id': a.mindId }).send({ category: 'fact', key: 'k', content: 'c' }).expect(201);
    });

    it('tenant-level routes stay closed to service keys', async () => {
      const h = bearer(full.key);
      await t.http().get('/v1/tenant/settings/lifecycle').set(h).expect(403);
      await t.http().get('/v1/tenant/export').set(h).expect(403);
      await t.http().post(`/v1/minds/${a.mindId}/keys`).set(h).send({}).expect(403);
      await t.http().get(`/v1/minds/${a.mindId}/keys`).set(h).expect(403);
      await t.http().post('/mcp').set(h).send({}).expect(403);
      const unknown = await t.http().get('/v1/minds').set(bearer(`esk_${'A'.repeat(43)}`)).expect(401);
      expect(unknown.body.message).toMatch(/unknown service key/);
    });
  });
});

describe('service keys in embedded mode (PGlite)', () => {
  let dir: string;
  let app: INestApplication;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-sk-'));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the SaaS flow works the same: service key, external-id mind, remember, recall', async () => {
    app = await createApp(loadConfig({ ENGRAM_DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...NO_SCHEDULES, ...NO_RATE_LIMITS }));
    await app.init();
    const http = request(app.getHttpServer());
    const reg = await http.post('/v1/auth/register').send({ email: 'saas@example.test', password: 'embedded secret', tenant_name: 'SaaS' }).expect(201);
    const key = await http.post('/v1/service-keys').set(bearer(reg.body.token)).send({ name: 'backend', scopes: ALL }).expect(201);
    expect(key.body.scopes).toEqual(ALL);
    const mind = await http.put('/v1/minds/by-external-id/user-7').set(bearer(key.body.key)).send({}).expect(201);
    await http.put('/v1/minds/by-external-id/user-7').set(bearer(key.body.key)).send({}).expect(200);
    const as = { ...bearer(key.body.key), 'X-Mind-Id': mind.body.id };
    await http.post('/v1/memory').set(as).send({ category: 'preference', key: 'user_diet', content: 'The user is vegetarian' }).expect(201);
    expect((await http.get('/v1/memory/recall').set(as).expect(200)).text).toContain('vegetarian');
    const listed = await http.get('/v1/service-keys').set(bearer(reg.body.token)).expect(200);
    expect(listed.body.items[0].scopes).toEqual(ALL);
  });
});

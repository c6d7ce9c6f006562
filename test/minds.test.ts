import { Client } from 'pg';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

describe('minds and Mind Keys', () => {
  let t: TestApp;
  let owner: TenantFixture;
  const auth = () => ({ Authorization: `Bearer ${owner.token}` });

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createTenant(t, 'minds');
  });
  afterAll(() => t.close());

  it('creates a mind answered with its id, lists it, finds it by name, refuses a duplicate name', async () => {
    const created = await t.http().post('/v1/minds').set(auth()).send({ name: 'Research agent', description: 'reads papers' }).expect(201);
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'Research agent', description: 'reads papers' });
    const byName = await t.http().get('/v1/minds').query({ name: 'Research agent' }).set(auth()).expect(200);
    expect(byName.body.items.map((m: { id: string }) => m.id)).toEqual([created.body.id]);
    await t.http().get(`/v1/minds/${created.body.id}`).set(auth()).expect(200);
    const dup = await t.http().post('/v1/minds').set(auth()).send({ name: 'Research agent' }).expect(409);
    expect(dup.body.message).toMatch(/^name: /);
  });

  // A tester's find: "Zoë" typed with a combining diaeresis was a second mind beside "Zoë".
  it('a name is the same name however its accents are encoded', async () => {
    const composed = 'Zo\u00eb';
    const decomposed = 'Zoe\u0308';
    const created = await t.http().post('/v1/minds').set(auth()).send({ name: composed }).expect(201);
    await t.http().post('/v1/minds').set(auth()).send({ name: decomposed }).expect(409);
    const byName = await t.http().get('/v1/minds').query({ name: decomposed }).set(auth()).expect(200);
    expect(byName.body.items.map((m: { id: string; name: string }) => [m.id, m.name])).toEqual([[created.body.id, composed]]);
    const ensured = await t.http().put('/v1/minds/by-external-id/zoe-nfd').set(auth()).send({ name: 'Zoe\u0308 B' }).expect(201);
    expect(ensured.body.name).toBe('Zo\u00eb B');
    // Its length is counted composed: 150 decomposed é are 150 characters; 200 U+0958 are 400
    // composed (a composition exclusion), refused naming the field.
    const long = await t.http().post('/v1/minds').set(auth()).send({ name: 'e\u0301'.repeat(150) }).expect(201);
    expect(long.body.name).toBe('\u00e9'.repeat(150));
    const grown = await t.http().post('/v1/minds').set(auth()).send({ name: '\u0958'.repeat(200) }).expect(400);
    expect(grown.body.message).toBe('name: must be at most 200 characters');
  });

  it('pages through minds with next_cursor', async () => {
    for (let i = 0; i < 5; i++) await t.http().post('/v1/minds').set(auth()).send({ name: `page-${i}` }).expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { items: { id: string }[]; next_cursor: string | null } } = await t
        .http()
        .get('/v1/minds')
        .query(cursor ? { limit: 2, cursor } : { limit: 2 })
        .set(auth())
        .expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((m) => m.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    const all = await t.http().get('/v1/minds').query({ limit: 200 }).set(auth()).expect(200);
    expect(seen).toEqual(all.body.items.map((m: { id: string }) => m.id));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('a new key is shown once, listed without its secret, works, and stops working when revoked', async () => {
    const mind = await t.http().post('/v1/minds').set(auth()).send({ name: 'keyed' }).expect(201);
    const key = await t.http().post(`/v1/minds/${mind.body.id}/keys`).set(auth()).send({ name: 'ci' }).expect(201);
    expect(key.body).toMatchObject({ id: expect.any(String), key: expect.stringMatching(/^emk_[A-Za-z0-9_-]{43}$/), name: 'ci' });

    const listed = await t.http().get(`/v1/minds/${mind.body.id}/keys`).set(auth()).expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(key.body.key);
    expect(listed.body.items[0].key_prefix).toBe(key.body.key.slice(0, 10));

    const agent = { Authorization: `Bearer ${key.body.key}` };
    await t.http().get('/v1/memory').set(agent).expect(200);
    await t.http().delete(`/v1/minds/${mind.body.id}/keys/${key.body.id}`).set(auth()).expect(204);
    await t.http().delete(`/v1/minds/${mind.body.id}/keys/${key.body.id}`).set(auth()).expect(204);
    const refused = await t.http().get('/v1/memory').set(agent).expect(401);
    expect(refused.body.message).toMatch(/revoked/);
  });

  it('keys are stored only as hashes', async () => {
    const c = new Client({ connectionString: t.db.ownerUrl });
    await c.connect();
    try {
      const { rows } = await c.query('select key_hash, key_prefix from mind_keys where id = $1', [owner.mindKeyId]);
      expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0].key_hash).not.toContain(owner.mindKey.slice(4));
    } finally {
      await c.end();
    }
  });

  it('deleting a mind removes its memories and makes its keys unknown', async () => {
    const f = await createTenant(t, 'doomed');
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'sky', content: 'The sky is blue' }).expect(201);
    await t.http().delete(`/v1/minds/${f.mindId}`).set({ Authorization: `Bearer ${f.token}` }).expect(204);
    const res = await t.http().get('/v1/memory').set(asAgent(f)).expect(401);
    expect(res.body.message).toMatch(/unknown Mind Key/);
    await t.http().get(`/v1/minds/${f.mindId}`).set({ Authorization: `Bearer ${f.token}` }).expect(404);
    const c = new Client({ connectionString: t.db.ownerUrl });
    await c.connect();
    try {
      const { rows } = await c.query('select count(*)::int as n from memories where mind_id = $1', [f.mindId]);
      expect(rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });

  it('Mind Keys cannot manage minds: 403', async () => {
    await t.http().get('/v1/minds').set(asAgent(owner)).expect(403);
    await t.http().post('/v1/minds').set(asAgent(owner)).send({ name: 'by agent' }).expect(403);
    await t.http().post(`/v1/minds/${owner.mindId}/keys`).set(asAgent(owner)).send({}).expect(403);
  });

  it('ids that are not UUIDs answer 404 like missing ones', async () => {
    await t.http().get('/v1/minds/not-a-uuid').set(auth()).expect(404);
    await t.http().get('/v1/minds/01a22895-c86e-7310-8c55-f345f5cdfafa').set(auth()).expect(404);
    await t.http().delete(`/v1/minds/${owner.mindId}/keys/nope`).set(auth()).expect(404);
  });
});

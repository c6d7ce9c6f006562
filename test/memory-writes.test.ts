import { asAgent, asUser, createTenant, startTestApp, storeMemory, type TenantFixture, type TestApp } from './support/test-app';

// The memory API's writes as seed 002 specifies them: upsert by (category, key) with a version
// history and provenance (source, verified, confidence) that follows the writer, PUT, verify and
// DELETE, batches of up to 500, and the X-Mind-Id header a person must send. The reads, over a
// mind of a fixed content, are test/memory-reads.test.ts.

describe('memory API (seed 002)', () => {
  let t: TestApp;
  let f: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'memory');
  });
  afterAll(() => t.close());

  describe('upsert by (category, key)', () => {
    it('a key stored again with new content and no date is dated now; the same content again keeps its date', async () => {
      const old = await storeMemory(t, asAgent(f), { category: 'fact', key: 'user_employer_dated', content: 'The user works at Acme.', occurred_at: '2023-01-01T00:00:00Z' }).expect(201);
      expect(old.body.occurred_at).toBe('2023-01-01T00:00:00.000Z');
      expect(old.headers['x-write-status']).toBe('created');
      const same = await storeMemory(t, asAgent(f), { category: 'fact', key: 'user_employer_dated', content: 'The user works at Acme.' }).expect(200);
      expect(same.body.occurred_at).toBe('2023-01-01T00:00:00.000Z');
      // Both 200s: the header tells an unchanged write from an update (a newcomer had to compare versions).
      expect(same.headers['x-write-status']).toBe('unchanged');
      const changed = await storeMemory(t, asAgent(f), { category: 'fact', key: 'user_employer_dated', content: 'The user works at Globex.' }).expect(200);
      expect(changed.headers['x-write-status']).toBe('updated');
      expect(Date.parse(changed.body.occurred_at)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
      const recall = await t.http().get('/v1/memory/recall').set(asAgent(f)).expect(200);
      expect(recall.text).toContain('The user works at Globex.');
      expect(recall.text).not.toContain('2023-01-01');
    });

    it('keeps one tag for the precomposed and the decomposed spelling of a word, and either filter finds it', async () => {
      const decomposed = 're\u0301sume\u0301';
      const precomposed = 'r\u00e9sum\u00e9';
      const cv = await storeMemory(t, asAgent(f), { category: 'note', key: 'cv_location', content: 'The CV is in the shared drive', tags: [decomposed, precomposed, 'Docs'] }).expect(201);
      expect(cv.body.tags).toEqual([precomposed, 'docs']);
      const other = await storeMemory(t, asAgent(f), { category: 'note', key: 'cv_photo', content: 'The CV photo is from 2025', tags: [decomposed] }).expect(201);
      expect(other.body.tags).toEqual([precomposed]);
      // The length limit counts the tag as stored: 64 accented letters typed decomposed are 64, not 128.
      const long = await storeMemory(t, asAgent(f), { category: 'note', key: 'cv_long_tag', content: 'A tag of 64 accented letters', tags: ['e\u0301'.repeat(64)] }).expect(201);
      expect(long.body.tags).toEqual(['\u00e9'.repeat(64)]);
      for (const tag of [decomposed, precomposed, precomposed.toUpperCase()]) {
        const byTag = await t.http().get('/v1/memory/by-tag').query({ tag }).set(asAgent(f)).expect(200);
        expect(byTag.body.items.map((m: { key: string }) => m.key).sort()).toEqual(['cv_location', 'cv_photo']);
        const searched = await t.http().get('/v1/memory/search').query({ q: 'CV', tag }).set(asAgent(f)).expect(200);
        expect(searched.body.items.map((m: { key: string }) => m.key).sort()).toEqual(['cv_location', 'cv_photo']);
      }
    });

    it('creates (201), overwrites with history (200), and never duplicates', async () => {
      const first = await storeMemory(t, asAgent(f), {
        category: 'project',
        key: 'project_synapse_status',
        content: 'v1.4.0 deployed',
        priority: 'high',
        tags: ['Synapse', 'deployment', 'synapse'],
      }).expect(201);
      expect(first.body).toMatchObject({
        id: expect.any(String),
        created_at: expect.any(String),
        category: 'project',
        key: 'project_synapse_status',
        tags: ['synapse', 'deployment'],
        source: 'agent',
        verified: false,
        confidence: 0.7,
        version: 1,
        mind_id: f.mindId,
      });

      const second = await storeMemory(t, asAgent(f), {
        category: 'project',
        key: 'project_synapse_status',
        content: 'v1.5.0 deployed',
        priority: 'high',
      }).expect(200);
      expect(second.body).toMatchObject({ id: first.body.id, content: 'v1.5.0 deployed', version: 2, tags: ['synapse', 'deployment'] });

      const list = await t.http().get('/v1/memory').query({ category: 'project' }).set(asAgent(f)).expect(200);
      expect(list.body.items.filter((m: { key: string }) => m.key === 'project_synapse_status')).toHaveLength(1);

      const history = await t.http().get(`/v1/memory/${first.body.id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number; content: string; change: string }) => [v.version, v.change, v.content])).toEqual([
        [2, 'update', 'v1.5.0 deployed'],
        [1, 'create', 'v1.4.0 deployed'],
      ]);
      expect(history.body.items[0]).toMatchObject({ actor_type: 'mind_key', actor_id: f.mindKeyId });
      // Each version is dated by the change it records, to the millisecond.
      expect(history.body.items.map((v: { created_at: string }) => v.created_at)).toEqual([second.body.updated_at, first.body.created_at]);
    });

    it('history keeps every field a write changes: when it happened, the payload, the source refs (a tester\'s find)', async () => {
      const trip = { category: 'context', key: 'history_trip', content: 'Flight to Rome' };
      const v1 = await storeMemory(t, asAgent(f), { ...trip, occurred_at: '2026-05-01T08:00:00Z', payload: { flight: 'AZ123' }, source_refs: ['msg-1'] }).expect(201);
      await storeMemory(t, asAgent(f), { ...trip, occurred_at: '2026-06-01T08:00:00Z', payload: { flight: 'AZ999' }, source_refs: ['msg-2'] }).expect(200);
      const history = await t.http().get(`/v1/memory/${v1.body.id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number; occurred_at: string; payload: unknown; source_refs: string[] }) => [v.version, v.occurred_at, v.payload, v.source_refs])).toEqual([
        [2, '2026-06-01T08:00:00.000Z', { flight: 'AZ999' }, ['msg-2']],
        [1, '2026-05-01T08:00:00.000Z', { flight: 'AZ123' }, ['msg-1']],
      ]);
      expect(history.body.items[1]).toMatchObject({ memory_type: 'working', temporal_context: null, temporal_position: null });
    });

    // A tester's find: the limit was counted before repeats were dropped.
    it('tags are counted as stored: 20 tags and a repeat in another case are 20 tags; 21 distinct ones are a 400', async () => {
      const twenty = Array.from({ length: 20 }, (_, i) => `t${i}`);
      const m = await storeMemory(t, asAgent(f), { category: 'note', key: 'tag_limit', content: 'Many tags', tags: [...twenty, 'T0', ' t1 '] }).expect(201);
      expect(m.body.tags).toEqual(twenty);
      const bad = await storeMemory(t, asAgent(f), { category: 'note', key: 'tag_limit', content: 'Many tags', tags: [...twenty, 't20'] }).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'tags', message: expect.stringContaining('at most 20 tags') }]);
    });

    // A tester's find: a memory could be put in a session but never taken out of it (null was a 400).
    it('null takes a memory out of its temporal context (and its position), or clears the position alone', async () => {
      const m = await storeMemory(t, asAgent(f), { category: 'note', key: 'temporal_clear', content: 'Talked about the trip', temporal_context: 'session 4', temporal_position: 3 }).expect(201);
      const path = `/v1/memory/${m.body.id}`;
      expect((await t.http().put(path).set(asAgent(f)).send({ temporal_position: null }).expect(200)).body).toMatchObject({ temporal_context: 'session 4', temporal_position: null });
      await t.http().put(path).set(asAgent(f)).send({ temporal_position: 5 }).expect(200);
      expect((await t.http().put(path).set(asAgent(f)).send({ temporal_context: null }).expect(200)).body).toMatchObject({ temporal_context: null, temporal_position: null, version: 4 });
      const bad = await t.http().put(path).set(asAgent(f)).send({ temporal_context: '' }).expect(400);
      expect(bad.body.errors[0].field).toBe('temporal_context');
    });

    // A tester's find (after mem0's reports of history that lost fields): an importance-only
    // change made a version that history showed identical to the one before.
    it('history keeps the importance a write sets: a change of importance alone is a version that shows it', async () => {
      const v1 = await storeMemory(t, asAgent(f), { category: 'fact', key: 'history_importance', content: 'The office wifi password changes monthly', importance: 0.8 }).expect(201);
      const v2 = await t.http().put(`/v1/memory/${v1.body.id}`).set(asAgent(f)).send({ importance: 0.1 }).expect(200);
      expect(v2.headers['x-write-status']).toBe('updated');
      const history = await t.http().get(`/v1/memory/${v1.body.id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number; importance_score: number }) => [v.version, v.importance_score])).toEqual([
        [2, 0.1],
        [1, 0.8],
      ]);
    });

    it('the same key in another category is another memory', async () => {
      const a = await storeMemory(t, asAgent(f), { category: 'note', key: 'shared_key', content: 'a note' }).expect(201);
      const b = await storeMemory(t, asAgent(f), { category: 'fact', key: 'shared_key', content: 'a fact' }).expect(201);
      expect(a.body.id).not.toBe(b.body.id);
    });

    it('re-sending the same memory changes nothing and writes no version', async () => {
      const body = { category: 'fact', key: 'office_city', content: 'Office is in Berlin', tags: ['office'] };
      const created = await storeMemory(t, asUser(f), body).expect(201);
      const again = await storeMemory(t, asUser(f), body).expect(200);
      expect(again.body).toMatchObject({ version: 1, updated_at: created.body.updated_at });
      const history = await t.http().get(`/v1/memory/${created.body.id}/history`).set(asUser(f)).expect(200);
      expect(history.body.items).toHaveLength(1);
    });

    it('source, verified and confidence follow the writer (seed 002)', async () => {
      const byUser = await storeMemory(t, asUser(f), { category: 'identity', key: 'user_name', content: 'Michael Schäfer' }).expect(201);
      expect(byUser.body).toMatchObject({ source: 'user', verified: true, confidence: 1 });
      const guessed = await storeMemory(t, asAgent(f), {
        category: 'preference',
        key: 'prefers_dark_mode',
        content: 'User seems to prefer dark mode',
        confidence: 0.5,
        source: 'agent',
      }).expect(201);
      expect(guessed.body).toMatchObject({ source: 'agent', verified: false, confidence: 0.5 });
      const lie = await storeMemory(t, asAgent(f), { category: 'note', key: 'claims_user', content: 'x', source: 'user' }).expect(400);
      expect(lie.body.errors[0].field).toBe('source');
    });

    it('an agent changing a verified memory makes it unverified; re-asserting the same content does not', async () => {
      const created = await storeMemory(t, asUser(f), { category: 'skill', key: 'python_level', content: 'Advanced Python, 10+ years' }).expect(201);
      const same = await storeMemory(t, asAgent(f), { category: 'skill', key: 'python_level', content: 'Advanced Python, 10+ years', tags: ['python'] }).expect(200);
      expect(same.body).toMatchObject({ verified: true, source: 'user', confidence: 1, version: 2 });
      const changed = await storeMemory(t, asAgent(f), { category: 'skill', key: 'python_level', content: 'Expert Python' }).expect(200);
      expect(changed.body).toMatchObject({ id: created.body.id, verified: false, source: 'agent', confidence: 0.7 });
    });

    it('fifty parallel upserts of one key leave one memory with a complete history', async () => {
      const writes = Array.from({ length: 50 }, (_, i) =>
        storeMemory(t, asAgent(f), { category: 'context', key: 'race_key', content: `version ${i}` }),
      );
      const results = await Promise.all(writes);
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.every((r) => r.status === 201 || r.status === 200)).toBe(true);
      const ids = new Set(results.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      const history = await t.http().get(`/v1/memory/${id}/history`).set(asAgent(f)).expect(200);
      expect(history.body.items.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
      expect(new Set(history.body.items.map((v: { content: string }) => v.content)).size).toBe(50);
    });
  });

  describe('update, verify, delete', () => {
    it('PUT changes fields and keeps the old version; category and key cannot change', async () => {
      const created = await storeMemory(t, asAgent(f), { category: 'note', key: 'put_me', content: 'first', tags: ['a'] }).expect(201);
      const updated = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ content: 'second', priority: 'low' }).expect(200);
      expect(updated.body).toMatchObject({ content: 'second', priority: 'low', tags: ['a'], version: 2 });
      expect(updated.headers['x-write-status']).toBe('updated');
      const cleared = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ expires_at: null }).expect(200);
      expect(cleared.body.version).toBe(2);
      expect(cleared.headers['x-write-status']).toBe('unchanged');
      const rename = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ key: 'other' }).expect(400);
      expect(rename.body.errors[0]).toEqual({ field: 'key', message: 'is not a known field here' });
      await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({}).expect(400);
    });

    it('only a person can verify: JWT 200, Mind Key 403', async () => {
      const created = await storeMemory(t, asAgent(f), { category: 'fact', key: 'verify_me', content: 'The office has two floors' }).expect(201);
      const denied = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asAgent(f)).expect(403);
      expect(denied.body.message).toMatch(/JWT/);
      const ok = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).expect(200);
      expect(ok.body).toMatchObject({ verified: true, version: 2 });
      const again = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).expect(200);
      expect(again.body.version).toBe(2);
      const history = await t.http().get(`/v1/memory/${created.body.id}/history`).set(asUser(f)).expect(200);
      expect(history.body.items[0]).toMatchObject({ change: 'verify', actor_type: 'user', actor_id: f.userId });

      // A person storing what the agent stored is the same verification, and the history says so.
      const told = await storeMemory(t, asAgent(f), { category: 'fact', key: 'restated_by_person', content: 'The office has three floors' }).expect(201);
      const confirmed = await storeMemory(t, asUser(f), { category: 'fact', key: 'restated_by_person', content: 'The office has three floors' }).expect(200);
      expect(confirmed.body).toMatchObject({ verified: true, source: 'agent', version: 2 });
      const versions = (await t.http().get(`/v1/memory/${told.body.id}/history`).set(asUser(f)).expect(200)).body.items;
      expect(versions.map((v: { change: string }) => v.change)).toEqual(['verify', 'create']);
    });

    it('DELETE removes the memory and its history', async () => {
      const created = await storeMemory(t, asAgent(f), { category: 'note', key: 'delete_me', content: 'bye' }).expect(201);
      await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(204);
      await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(404);
      await t.http().get(`/v1/memory/${created.body.id}/history`).set(asAgent(f)).expect(404);
      await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(404);
    });
  });

  describe('batch', () => {
    it('stores up to 500 in one request and reports each status', async () => {
      const items = Array.from({ length: 500 }, (_, i) => ({ category: 'note', key: `bulk_${i}`, content: `bulk item ${i}` }));
      const res = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items }).expect(200);
      expect(res.body).toMatchObject({ created: 500, updated: 0, unchanged: 0 });
      const again = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items }).expect(200);
      expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 500 });
    });

    it('refuses 501 items, and a batch with one bad item stores nothing', async () => {
      const tooMany = Array.from({ length: 501 }, (_, i) => ({ category: 'note', key: `over_${i}`, content: 'x' }));
      const big = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items: tooMany }).expect(400);
      expect(big.body.errors[0].field).toBe('items');
      const mixed = [
        { category: 'note', key: 'mixed_ok', content: 'fine' },
        { category: 'note', key: 'Mixed-Bad', content: 'bad key' },
      ];
      const bad = await t.http().post('/v1/memory/batch').set(asAgent(f)).send({ items: mixed }).expect(400);
      expect(bad.body.errors[0].field).toBe('items[1].key');
      const search = await t.http().get('/v1/memory').query({ category: 'note', limit: 200 }).set(asAgent(f)).expect(200);
      expect(search.body.items.find((m: { key: string }) => m.key === 'mixed_ok')).toBeUndefined();
    });
  });

  describe('the mind header for people', () => {
    it('requires X-Mind-Id with a JWT and checks it', async () => {
      const missing = await t.http().get('/v1/memory').set({ Authorization: `Bearer ${f.token}` }).expect(400);
      expect(missing.body.errors[0].field).toBe('X-Mind-Id');
      const malformed = await t.http().get('/v1/memory').set({ Authorization: `Bearer ${f.token}`, 'X-Mind-Id': 'mind-1' }).expect(400);
      expect(malformed.body.errors[0].field).toBe('X-Mind-Id');
      await t.http().get('/v1/memory').set(asUser(f, '01a22895-c86e-7310-8c55-f345f5cdfafa')).expect(404);
    });

    it('a Mind Key naming another mind in X-Mind-Id gets 403', async () => {
      await t.http().get('/v1/memory').set({ ...asAgent(f), 'X-Mind-Id': '01a22895-c86e-7310-8c55-f345f5cdfafa' }).expect(403);
      await t.http().get('/v1/memory').set({ ...asAgent(f), 'X-Mind-Id': f.mindId }).expect(200);
    });
  });
});

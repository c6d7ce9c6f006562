import { ManualClock } from '@engram/config';
import { ForgettingJob, JobRegistry } from '@engram/jobs';
import { QueueName } from '@engram/queues';
import { ownerQuery } from './support/test-db';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

const HOUR = 3_600_000;

// Issue 8, item 5: writes and background work racing on the same rows.
describe('concurrency: parallel upserts of one key', () => {
  let t: TestApp;
  let f: TenantFixture;
  let sql: ReturnType<typeof ownerQuery>;

  beforeAll(async () => {
    // Ten connections, so the 50 requests really meet in the database.
    t = await startTestApp({ DATABASE_POOL_MAX: '10' });
    f = await createTenant(t, 'race');
    sql = ownerQuery(t.db);
  });
  afterAll(() => t.close());

  it('50 parallel upserts with different contents: one memory, a version per change, a complete history', async () => {
    const contents = Array.from({ length: 50 }, (_, i) => `Office moved to building ${i} (${'x'.repeat(i)})`);
    const results = await Promise.all(
      contents.map((content, i) => t.http().post('/v1/memory').set(i % 2 ? asAgent(f) : asUser(f)).send({ category: 'fact', key: 'office_building', content, tags: [`v${i}`] })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // Each write is accepted: created once, updated after that (no conflict leaks out as 409).
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);

    const memories = await sql<{ id: string; version: number; content: string }>(
      `select id, version, content from memories where tenant_id = $1 and mind_id = $2 and category = 'fact' and key = 'office_building'`,
      [f.tenantId, f.mindId],
    );
    expect(memories).toHaveLength(1);
    const memory = memories[0] as { id: string; version: number; content: string };
    // Every content differs from the one before it, so each of the 50 writes is a change.
    expect(memory.version).toBe(50);
    const versions = await sql<{ version: number; content: string; change: string }>(
      `select version, content, change from memory_versions where tenant_id = $1 and memory_id = $2 order by version`,
      [f.tenantId, memory.id],
    );
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(versions.map((v) => v.content))).toEqual(new Set(contents));
    expect(versions.map((v) => v.change)).toEqual(['create', ...Array<string>(49).fill('update')]);
    // The newest version is what the memory holds, and each answer saw its own write.
    expect(versions[49]?.content).toBe(memory.content);
    const answered = results.map((r) => (r.body as { version: number }).version).sort((a, b) => a - b);
    expect(answered).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const history = await t.http().get(`/v1/memory/${memory.id}/history`).set(asAgent(f)).expect(200);
    expect(history.body.items ?? history.body).toHaveLength(50);
  });

  it('50 parallel upserts of the same content: one memory, version 1 (idempotent)', async () => {
    const body = { category: 'preference', key: 'coffee_order', content: 'A flat white, no sugar', tags: ['coffee'] };
    const results = await Promise.all(Array.from({ length: 50 }, () => t.http().post('/v1/memory').set(asAgent(f)).send(body)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(new Set(results.map((r) => (r.body as { id: string }).id)).size).toBe(1);
    const rows = await sql<{ id: string; version: number }>(
      `select id, version from memories where tenant_id = $1 and mind_id = $2 and category = 'preference' and key = 'coffee_order'`,
      [f.tenantId, f.mindId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.version).toBe(1);
    const versions = await sql<{ n: string }>(`select count(*) as n from memory_versions where tenant_id = $1 and memory_id = $2`, [f.tenantId, rows[0]?.id]);
    expect(Number(versions[0]?.n)).toBe(1);
  });

  it('50 parallel batches over the same keys: all or nothing each, no 5xx, versions without gaps', async () => {
    const keys = ['alpha', 'beta', 'gamma'];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t
          .http()
          .post('/v1/memory/batch')
          // Keys in a different order per batch: lock order differs, a deadlock would surface as 5xx.
          .send({ items: (i % 2 ? [...keys].reverse() : keys).map((key) => ({ category: 'note', key: `batch_${key}`, content: `${key} from batch ${i}` })) })
          .set(asAgent(f))
          // Before the fix these deadlocked in a chain (PostgreSQL breaks one a second, three tries
          // each, then 500): a regression shows as a timeout or a 500 here, not a hung suite.
          .timeout(30_000),
      ),
    );
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    for (const key of keys) {
      const rows = await sql<{ id: string; version: number }>(`select id, version from memories where tenant_id = $1 and mind_id = $2 and key = $3`, [f.tenantId, f.mindId, `batch_${key}`]);
      expect(rows).toHaveLength(1);
      const versions = await sql<{ version: number }>(`select version from memory_versions where tenant_id = $1 and memory_id = $2 order by version`, [f.tenantId, rows[0]?.id]);
      expect(versions.map((v) => v.version)).toEqual(Array.from({ length: rows[0]?.version ?? 0 }, (_, i) => i + 1));
      expect(rows[0]?.version).toBe(50);
    }
  }, 90_000);
});

// A tester's find (after mem0's reports of lost updates): two agents editing one memory from the
// same version overwrote each other unseen; If-Match on the memory's ETag (its version) now decides.
describe('concurrency: If-Match on a memory\'s version', () => {
  let t: TestApp;
  let f: TenantFixture;
  let other: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'if-match');
    other = await createTenant(t, 'if-match-other');
  });
  afterAll(() => t.close());

  it('a change made from an old version is refused with 412 and writes nothing; from the current one it goes through', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'preference', key: 'diet', content: 'Vegetarian', tags: ['vegetarian'] }).expect(201);
    expect(created.headers.etag).toBe('"1"');
    const path = `/v1/memory/${created.body.id}`;
    const read = await t.http().get(path).set(asAgent(f)).expect(200);
    expect(read.headers.etag).toBe('"1"');
    // Two agents read version 1; B writes first.
    const b = await t.http().put(path).set(asAgent(f)).set('If-Match', '"1"').send({ tags: ['vegetarian', 'no_nuts'] }).expect(200);
    expect(b.headers.etag).toBe('"2"');
    const a = await t.http().put(path).set(asAgent(f)).set('If-Match', read.headers.etag as string).send({ tags: ['vegetarian', 'low_salt'] }).expect(412);
    expect(a.body.message).toContain('version 2');
    // Only memories carry an ETag: not a refusal, nor a list (a newcomer retried with the 412's own).
    expect(a.headers.etag).toBeUndefined();
    expect((await t.http().get('/v1/memory').set(asAgent(f)).expect(200)).headers.etag).toBeUndefined();
    expect((await t.http().get(path).set(asAgent(f)).expect(200)).body).toMatchObject({ version: 2, tags: ['vegetarian', 'no_nuts'] });
    // A weak tag never matches (strong comparison, RFC 9110 §13.1.1); one of a list does; * does.
    await t.http().put(path).set(asAgent(f)).set('If-Match', 'W/"2"').send({ priority: 'high' }).expect(412);
    await t.http().put(path).set(asAgent(f)).set('If-Match', '"7", "2"').send({ priority: 'high' }).expect(200);
    await t.http().put(path).set(asAgent(f)).set('If-Match', '*').send({ priority: 'low' }).expect(200);
    // Without the header, as before: the last write wins.
    await t.http().put(path).set(asAgent(f)).send({ priority: 'normal' }).expect(200);
    // A copy still current is not sent again.
    const now = await t.http().get(path).set(asAgent(f)).expect(200);
    await t.http().get(path).set(asAgent(f)).set('If-None-Match', now.headers.etag as string).expect(304);
    // Deleting from an old version is refused too.
    await t.http().delete(path).set(asAgent(f)).set('If-Match', '"2"').expect(412);
    await t.http().get(path).set(asAgent(f)).expect(200);
    await t.http().delete(path).set(asAgent(f)).set('If-Match', now.headers.etag as string).expect(204);
  });

  // Helper 38's: If-Match was ignored by the other routes that change a memory.
  it('an upsert by key and a verification honour If-Match too; a batch refuses it', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'parking', content: 'Spot 12' }).expect(201);
    await t.http().post('/v1/memory').set(asAgent(f)).set('If-Match', '"1"').send({ category: 'fact', key: 'parking', content: 'Spot 14' }).expect(200);
    const stale = await t.http().post('/v1/memory').set(asAgent(f)).set('If-Match', '"1"').send({ category: 'fact', key: 'parking', content: 'Spot 15' }).expect(412);
    expect(stale.body.message).toContain('version 2');
    const none = await t.http().post('/v1/memory').set(asAgent(f)).set('If-Match', '*').send({ category: 'fact', key: 'parking_new', content: 'Spot 3' }).expect(412);
    expect(none.body.message).toContain('no such memory');
    await t.http().post('/v1/memory').set(asAgent(f)).set('If-Match', 'garbage').send({ category: 'fact', key: 'parking', content: 'Spot 16' }).expect(400);
    expect((await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(200)).body).toMatchObject({ version: 2, content: 'Spot 14' });
    await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).set('If-Match', '"1"').expect(412);
    const verified = await t.http().post(`/v1/memory/${created.body.id}/verify`).set(asUser(f)).set('If-Match', '"2"').expect(200);
    expect(verified.headers.etag).toBe(`"${verified.body.version}"`);
    const batch = await t.http().post('/v1/memory/batch').set(asAgent(f)).set('If-Match', '"2"').send({ items: [{ category: 'fact', key: 'parking', content: 'Spot 20' }] }).expect(400);
    expect(batch.body.errors).toEqual([{ field: 'If-Match', message: expect.stringContaining('batch') }]);
  });

  it('a malformed If-Match is a 400 naming the header; another tenant\'s memory is a 404 whatever the header', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'office', content: 'Room 12' }).expect(201);
    const bad = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).set('If-Match', '1').send({ content: 'Room 13' }).expect(400);
    expect(bad.body.errors).toEqual([{ field: 'If-Match', message: expect.stringContaining('entity tags') }]);
    await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(other)).set('If-Match', '"1"').send({ content: 'Room 13' }).expect(404);
    await t.http().delete(`/v1/memory/${created.body.id}`).set(asAgent(other)).set('If-Match', '"1"').expect(404);
    expect((await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(200)).body).toMatchObject({ version: 1, content: 'Room 12' });
  });
});

describe('concurrency: consolidation, forgetting and accesses on the same memories', () => {
  let t: TestApp;
  let f: TenantFixture;
  let sql: ReturnType<typeof ownerQuery>;
  const clock = new ManualClock('2026-03-06T09:00:00Z');

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MAX: '10' }, { clock });
    f = await createTenant(t, 'race-lifecycle');
    sql = ownerQuery(t.db);
  });
  afterAll(() => t.close());

  it('reaches one consistent state: no duplicate episodes, retention in 0..1, forgotten_at by the rules, no deadlock', async () => {
    // Memories that will fade (writer's importance 0.5: working layer), some critical (pinned).
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t
        .http()
        .post('/v1/memory')
        .set(asAgent(f))
        .send({ category: 'note', key: `fading_${i}`, content: `A passing remark number ${i} about the weather`, importance: 0.3 + (i % 4) * 0.1, priority: i % 5 === 0 ? 'critical' : 'normal' })
        .expect(201);
      ids.push(res.body.id);
    }
    // Conversations whose short-term memory the sleep cycle will consolidate (or let go).
    const conversations = ['c-one', 'c-two', 'c-three', 'c-four'];
    const words = ['deploy', 'kubernetes', 'postgres', 'invoice', 'holiday', 'migration', 'budget', 'roadmap'];
    for (const [ci, c] of conversations.entries()) {
      const messages = Array.from({ length: 6 }, (_, i) => ({
        content: `Remember: the ${words[(ci + i) % words.length]} plan for team ${ci} step ${i} is due on Friday ${i}!`,
        importance: 0.55 + ((ci + i) % 5) * 0.08,
      }));
      const res = await t.http().post(`/v1/conversations/${c}/messages`).set(asAgent(f)).send({ messages });
      expect(res.status).toBeLessThan(300);
    }
    const stmBefore = Number((await sql<{ n: string }>(`select count(*) as n from stm_entries where tenant_id = $1`, [f.tenantId]))[0]?.n);

    // A day later: retention has decayed below the soft threshold for some, the STM time rules fire.
    clock.advance(26 * HOUR);
    const at = clock.now();
    const jobs = t.app.get(JobRegistry);
    const forgetting = t.app.get(ForgettingJob);

    const tasks: Promise<unknown>[] = [];
    const accessStatuses: number[] = [];
    let consolidated = 0;
    for (let round = 0; round < 8; round++) {
      tasks.push(jobs.job(QueueName.Consolidation).run(f.tenantId, at).then((r) => (consolidated += r.consolidated ?? 0)));
      tasks.push(jobs.job(QueueName.Forgetting).run(f.tenantId, at));
      tasks.push(forgetting.run(f.tenantId, at));
      // Half the memories are read (an access reinforces, may promote and un-forget); the other half only fade.
      for (const id of ids.filter((_, i) => i % 2 === 0)) tasks.push(t.http().get(`/v1/memory/${id}`).set(round % 2 ? asAgent(f) : asUser(f)).then((r) => accessStatuses.push(r.status)));
      if (round % 3 === 0) {
        for (const c of conversations) tasks.push(t.http().post(`/v1/conversations/${c}/consolidate`).set(asAgent(f)).then((r) => accessStatuses.push(r.status)));
      }
    }
    const settled = await Promise.allSettled(tasks);
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String((s.reason as Error)?.message ?? s.reason));
    // No deadlock (40P01), no serialization failure, nothing thrown at all.
    expect(failures).toEqual([]);
    expect(accessStatuses.filter((s) => s !== 200)).toEqual([]);

    // Every STM entry went somewhere once: consolidated entries left STM, each into one memory.
    const stmAfter = await sql<{ n: string }>(`select count(*) as n from stm_entries where tenant_id = $1`, [f.tenantId]);
    expect(Number(stmAfter[0]?.n)).toBeLessThan(stmBefore || 1);
    const episodes = await sql<{ key: string; n: string }>(
      `select key, count(*) as n from memories where tenant_id = $1 and key like 'episode\\_%' group by key having count(*) > 1`,
      [f.tenantId],
    );
    expect(episodes).toEqual([]);
    // A message is in the source_refs of at most one memory (a near-duplicate reinforces, never copies).
    const shared = await sql<{ ref: string; n: string }>(
      `select ref, count(*) as n from memories, unnest(source_refs) as ref where tenant_id = $1 and memory_type = 'episodic' group by ref having count(*) > 1`,
      [f.tenantId],
    );
    expect(shared).toEqual([]);
    // One 'create' version per episode, versions without gaps.
    const badVersions = await sql<{ id: string }>(
      `select m.id from memories m
       where m.tenant_id = $1 and (
         (select count(*) from memory_versions v where v.tenant_id = m.tenant_id and v.memory_id = m.id and v.change = 'create') <> 1
         or (select count(*) from memory_versions v where v.tenant_id = m.tenant_id and v.memory_id = m.id) <> m.version
         or (select max(version) from memory_versions v where v.tenant_id = m.tenant_id and v.memory_id = m.id) <> m.version)`,
      [f.tenantId],
    );
    expect(badVersions).toEqual([]);
    const episodeCount = Number((await sql<{ n: string }>(`select count(*) as n from memories where tenant_id = $1 and memory_type = 'episodic'`, [f.tenantId]))[0]?.n);
    expect(episodeCount).toBeGreaterThan(0);

    // Retention within 0..1, and forgotten_at by the rules once the dust settles: a last sweep at
    // the same instant, then a second that finds nothing more to do (idempotent).
    const settle = await forgetting.run(f.tenantId, at);
    const again = await forgetting.run(f.tenantId, at);
    expect(again).toEqual({ snapshotted: 0, soft_forgotten: 0, evicted: 0, expired: 0 });
    const out = await sql<{ n: string }>(
      `select count(*) as n from memories where tenant_id = $1 and current_retention is not null and (current_retention < 0 or current_retention > 1)`,
      [f.tenantId],
    );
    expect(Number(out[0]?.n)).toBe(0);
    const all = await sql<{ id: string }>(`select id from memories where tenant_id = $1`, [f.tenantId]);
    let forgotten = 0;
    for (const { id } of all) {
      const card = (await t.http().get(`/v1/memory/${id}/retention`).set(asAgent(f)).expect(200)).body as {
        priority: string;
        current_retention: number | null;
        forgotten_at: string | null;
        forgetting: { soft_threshold: number };
      };
      if (card.current_retention !== null) {
        expect(card.current_retention).toBeGreaterThanOrEqual(0);
        expect(card.current_retention).toBeLessThanOrEqual(1);
      }
      const shouldForget = card.priority !== 'critical' && card.current_retention !== null && card.current_retention < card.forgetting.soft_threshold;
      expect({ id, forgotten: card.forgotten_at !== null }).toEqual({ id, forgotten: shouldForget });
      if (card.forgotten_at) forgotten += 1;
    }
    // The race did forget something (the unread, non-critical fading memories), so the rule above was tested both ways.
    expect(forgotten).toBeGreaterThan(0);
    expect(forgotten).toBeLessThan(all.length);
    console.log(
      `concurrency: ${tasks.length} racing tasks; consolidated ${consolidated} by the sleep cycle; ${episodeCount} episodes; ${all.length} memories, ${forgotten} forgotten; settle sweep ${JSON.stringify(settle)}`,
    );
  }, 120_000);
});

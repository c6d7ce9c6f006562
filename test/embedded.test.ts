import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { sql } from 'kysely';
import request from 'supertest';
import { DATABASE, EmbeddedVacuum, TenantDb, VECTOR_ARITHMETIC, openDatabase, vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { NO_SCHEDULES, loadConfig } from '@engram/config';
import { createApp } from '../apps/api/src/create-app';

// With no DATABASE_URL the whole service runs in one process on PGlite (+pgvector), migrating
// itself at start: what `npm start` does on a fresh machine.
describe('embedded mode (PGlite)', () => {
  let dir: string;
  let app: INestApplication;

  const boot = async () => {
    // The vacuum's timer off: the test below runs it by hand, on a table it has not analyzed yet.
    // The sweeps' timers off too: the association job's first run (60 s in) linked the 1,320
    // memories between the vacuum test's two runs on a slow CI machine, so analyze was due again.
    app = await createApp(loadConfig({ ENGRAM_DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test', EMBEDDED_VACUUM_INTERVAL_MS: '0', ...NO_SCHEDULES }));
    await app.init();
    return request(app.getHttpServer());
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-embedded-'));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Two PGlite boots (the first migrates a new data directory: ~5 s on an idle 2-core machine)
  // and argon2 at registration: on a loaded CI machine this has taken over 60 s.
  it('registers, creates a mind, stores and recalls; data and tokens survive a restart', async () => {
    let http = await boot();
    await http.get('/health/ready').expect(200);
    const reg = await http.post('/v1/auth/register').send({ email: 'solo@example.test', password: 'embedded secret', tenant_name: 'Solo' }).expect(201);
    const auth = { Authorization: `Bearer ${reg.body.token}` };
    const mind = await http.post('/v1/minds').set(auth).send({ name: "Michael's Mind" }).expect(201);
    const key = await http.post(`/v1/minds/${mind.body.id}/keys`).set(auth).send({}).expect(201);
    const agent = { Authorization: `Bearer ${key.body.key}` };
    await http.post('/v1/memory').set(agent).send({ category: 'preference', key: 'communication_style', content: 'Prefers concise technical responses', tags: ['communication'], priority: 'high' }).expect(201);
    await http.post('/v1/memory').set({ ...auth, 'X-Mind-Id': mind.body.id }).send({ category: 'identity', key: 'user_name', content: 'Michael Schäfer', priority: 'critical' }).expect(201);

    const expected = [
      "Mind: Michael's Mind",
      'Memories: 2 total (1 verified, 1 unverified)',
      '',
      '[001] identity (CRITICAL) [verified]',
      '  user_name',
      '  Michael Schäfer',
      '',
      '[002] preference (HIGH) [unverified]',
      '  communication_style',
      '  Prefers concise technical responses',
      '  Tags: communication',
      '',
    ].join('\n');
    expect((await http.get('/v1/memory/recall').set(agent).expect(200)).text).toBe(expected);

    await app.close();
    http = await boot();
    expect((await http.get('/v1/memory/recall').set(agent).expect(200)).text).toBe(expected);
    await http.get('/v1/auth/me').set(auth).expect(200);
    const hits = await http.get('/v1/memory/search').query({ q: 'which responses are preferred?' }).set(agent).expect(200);
    expect(hits.body.items[0].key).toBe('communication_style');
    // A write into a mind that is gone answers 404 naming the mind (PGlite's foreign-key error,
    // which stands in for a read of the mind), and stores nothing.
    const other = await http.post('/v1/minds').set(auth).send({ name: 'Short-lived' }).expect(201);
    await http.delete(`/v1/minds/${other.body.id}`).set(auth).expect(204);
    const gone = await http.post('/v1/memory').set({ ...auth, 'X-Mind-Id': other.body.id }).send({ category: 'note', key: 'late', content: 'Too late' });
    expect({ status: gone.status, message: gone.body.message }).toEqual({ status: 404, message: 'mind not found' });
    await http.post('/v1/memory/batch').set({ ...auth, 'X-Mind-Id': other.body.id }).send({ items: [{ category: 'note', key: 'late', content: 'Too late' }] }).expect(404);
  }, 180_000);

  it('refuses a second process on the same data directory, naming it', async () => {
    await expect(openDatabase(loadConfig({ ENGRAM_DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test' }))).rejects.toThrow(
      new RegExp(`embedded database at ${dir}/pg is in use by another Engram process`),
    );
    // The running one is unharmed.
    await request(app.getHttpServer()).get('/health/ready').expect(200);
  });

  it('runs as engram_app under RLS in embedded mode too', async () => {
    const db = app.get(DATABASE);
    const { rows } = await sql<{ role: string; n: number }>`select current_user as role, (select count(*)::int from memories) as n`.execute(db);
    expect(rows[0]).toEqual({ role: 'engram_app', n: 0 });
  });

  it('imports an export of 600 memories into another tenant, and again without change (PGlite took no key list of that size)', async () => {
    const http = request(app.getHttpServer());
    const tenant = async (name: string) => {
      const reg = await http.post('/v1/auth/register').send({ email: `${name}@example.test`, password: 'embedded secret', tenant_name: name }).expect(201);
      return { Authorization: `Bearer ${reg.body.token}` };
    };
    const a = await tenant('exporter');
    const mind = await http.post('/v1/minds').set(a).send({ name: 'big mind' }).expect(201);
    for (let b = 0; b < 2; b++) {
      const items = Array.from({ length: 300 }, (_, i) => ({ category: 'note', key: `n${b * 300 + i}`, content: `note number ${b * 300 + i}` }));
      await http.post('/v1/memory/batch').set({ ...a, 'X-Mind-Id': mind.body.id }).send({ items }).expect(200);
    }
    const file = (await http.get('/v1/tenant/export').set(a).expect(200)).text;
    const b = await tenant('importer');
    const ndjson = { ...b, 'Content-Type': 'application/x-ndjson' };
    const first = await http.post('/v1/tenant/import').set(ndjson).send(file).expect(200);
    expect(first.body).toMatchObject({ minds: { created: 1 }, memories: { created: 600, updated: 0, unchanged: 0 }, versions: { created: 600 } });
    const again = await http.post('/v1/tenant/import').set(ndjson).send(file).expect(200);
    expect(again.body).toMatchObject({ minds: { matched: 1 }, memories: { created: 0, updated: 0, unchanged: 600 }, versions: { created: 0 } });
  });

  // Embedded mode compares vectors widened to single precision (WebAssembly has no F16C): the
  // same neighbours at the same distances as pgvector's halfvec arithmetic on the stored values.
  it('finds the same nearest memories at the same distances as halfvec arithmetic', async () => {
    // Widened: the distances below would match either way, the speed would not.
    expect(app.get(VECTOR_ARITHMETIC)).toBe('vector');
    const http = request(app.getHttpServer());
    const reg = await http.post('/v1/auth/register').send({ email: 'vectors@example.test', password: 'embedded secret', tenant_name: 'Vectors' }).expect(201);
    const owner = { Authorization: `Bearer ${reg.body.token}` };
    const mind = await http.post('/v1/minds').set(owner).send({ name: 'vectors' }).expect(201);
    const who = ['Anna', 'Bao', 'Chidi', 'Dana', 'Emil'];
    const did = ['adopted a dog', 'ran a marathon', 'painted the kitchen', 'started a pottery class', 'visited Lisbon', 'lost her keys'];
    const when = ['on Monday', 'last spring', 'in 2019', 'after work'];
    const items = who.flatMap((w) => did.flatMap((d) => when.map((t) => `${w} ${d} ${t}`))).map((content, i) => ({ category: 'note', key: `n${i}`, content }));
    await http.post('/v1/memory/batch').set({ ...owner, 'X-Mind-Id': mind.body.id }).send({ items }).expect(200);
    const q = 'who went to Lisbon last spring';
    const res = await http.get('/v1/memory/search').query({ q, mode: 'vector', explain: true, limit: 10 }).set({ ...owner, 'X-Mind-Id': mind.body.id }).expect(200);
    const { rows: reference } = await app.get(TenantDb).run(reg.body.tenant.id, async (tx) =>
      (
        await sql<{ id: string; d: number }>`
        select id::text as id, (embedding <=> ${vectorLiteral(new HashingEmbedder().embedOne(q))}::halfvec)::float8 as d
        from memories where mind_id = ${mind.body.id} order by d, id desc limit 10`.execute(tx.trx)
      ),
    );
    const byRank = [...res.body.items].filter((h) => h.explain.vector.rank !== null).sort((a, b) => a.explain.vector.rank - b.explain.vector.rank);
    expect(byRank.length).toBeGreaterThan(5);
    expect(byRank[0].id).toBe(reference[0]!.id);
    const distance = new Map(reference.map((r) => [r.id, r.d]));
    for (const hit of byRank) if (distance.has(hit.id)) expect(Math.abs(hit.explain.vector.distance - (distance.get(hit.id) as number))).toBeLessThan(1e-6);
    expect(byRank.filter((h) => distance.has(h.id)).length).toBeGreaterThan(5);
  }, 60_000);

  it("analyzes and vacuums as PostgreSQL's autovacuum would, which PGlite never does, and goes back to the app role", async () => {
    const db = app.get(DATABASE);
    const rows = async () => Number((await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = 'memories'`.execute(db)).rows[0]?.n);
    // The 1,200 memories above were never counted: the planner would guess.
    expect(await rows()).toBeLessThan(1);
    const done = await app.get(EmbeddedVacuum).run();
    expect(done).toEqual(expect.arrayContaining([expect.stringMatching(/^(vacuum \(analyze\)|analyze) memories$/)]));
    expect(await rows()).toBeGreaterThanOrEqual(1200);
    const { rows: who } = await sql<{ role: string }>`select current_user as role`.execute(db);
    expect(who).toEqual([{ role: 'engram_app' }]);
    // Nothing changed since: nothing is due.
    expect(await app.get(EmbeddedVacuum).run()).not.toContain('analyze memories');
  });
});

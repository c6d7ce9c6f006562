import { sql, type Kysely } from 'kysely';
import { DATABASE, type DB } from '@engram/db';
import { AccessRecorder } from '@engram/services';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

// The hot paths' statements run as named prepared statements (libs/db prepared.ts), each
// execution still planned for its own values; with DATABASE_PREPARED_STATEMENTS=false (a
// transaction-mode PgBouncer before 1.21) none is left on a connection. A pool of one connection,
// so that what the requests prepared is what this test's statements see.

describe.each([
  ['on (the default)', {}, true],
  ['off', { DATABASE_PREPARED_STATEMENTS: 'false' }, false],
])('prepared statements %s', (_name, env, prepared) => {
  let t: TestApp;
  let f: TenantFixture;
  let db: Kysely<DB>;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_POOL_MAX: '1', ...env });
    f = await createTenant(t, 'prepared');
    db = t.app.get(DATABASE);
    for (const [key, content] of [
      ['boat', 'The user keeps a sailing boat at Brest harbour'],
      ['tea', 'The user drinks green tea every morning'],
      ['brest', 'Brest is where the user grew up'],
    ]) {
      await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key, content }).expect(201);
    }
  });
  afterAll(() => t.close());

  it('answers the same search, reads and recall on every call, and the access is recorded each time', async () => {
    const first = await t.http().get('/v1/memory/search').query({ q: 'where is the boat, in Brest?' }).set(asAgent(f)).expect(200);
    expect(first.body.items.map((m: { key: string }) => m.key).slice(0, 2).sort()).toEqual(['boat', 'brest']);
    for (let i = 0; i < 6; i++) {
      const again = await t.http().get('/v1/memory/search').query({ q: 'where is the boat, in Brest?' }).set(asAgent(f)).expect(200);
      expect(again.body.items.map((m: { id: string }) => m.id)).toEqual(first.body.items.map((m: { id: string }) => m.id));
    }
    const boat = first.body.items.find((m: { key: string }) => m.key === 'boat');
    const read = await t.http().get(`/v1/memory/${boat.id}`).set(asAgent(f)).expect(200);
    // Seven searches and this read: eight accesses, none lost to a reused statement.
    expect(read.body.access_count).toBe(8);
    const recall = await t.http().get('/v1/memory/recall').set(asAgent(f)).expect(200);
    expect(recall.text).toContain('Memories: 3 total');
  });

  it(prepared ? 'leaves the statements prepared on the connection, planned per execution' : 'leaves no statement prepared', async () => {
    // The accesses of the reads above are written behind (AccessRecorder): write them now.
    await t.app.get(AccessRecorder).flush();
    const names = await sql<{ name: string }>`select name from pg_prepared_statements where name like 'e\\_%'`.execute(db);
    const mode = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db);
    if (prepared) {
      // The search's start, its one statement, the read by id, recall and its counts, the accesses'
      // read and write.
      expect(names.rows.length).toBeGreaterThanOrEqual(7);
      expect(mode.rows[0]?.plan_cache_mode).toBe('force_custom_plan');
    } else {
      expect(names.rows).toEqual([]);
      expect(mode.rows[0]?.plan_cache_mode).toBe('auto');
    }
  });

  // Last: it changes the connection. CI's faults test: PostgreSQL restarted while a transaction held a connection between two
  // statements, and pg emitted the server's FATAL as an unhandled 'error': the process died.
  it('a connection the server ends while a unit of work holds it fails that work, not the process; the next request gets a new one', async () => {
    const work = db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      await ownerQuery(t.db)('select pg_terminate_backend($1)', [rows[0]!.pid]);
      // The FATAL arrives while no statement of this connection runs.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sql`select 1`.execute(trx);
    });
    await expect(work).rejects.toThrow();
    await t.http().get('/v1/memory/search').query({ q: 'boat' }).set(asAgent(f)).expect(200);
  });
});

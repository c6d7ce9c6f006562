import { Client } from 'pg';
import { waitFor } from './support/child-service';
import { ownerQuery } from './support/test-db';
import { createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// Advisory lock keys of the bait below; an API transaction takes FIRST, then SECOND.
const FIRST = 7_001;
const SECOND = 7_002;

// Real deadlocks, broken by PostgreSQL, with an API transaction as the victim each time: a
// trigger makes every mind insert take two advisory locks in order, and a session of the test
// (the owner's) holds SECOND while asking for FIRST. The API's backends detect the cycle after
// the server's deadlock_timeout (1 s by default) and abort; the test's session waits longer
// (its own deadlock_timeout, set for that session only), so it is never the victim.
describe('a deadlock that TenantDb cannot retry away', () => {
  let t: TestApp;
  let f: TenantFixture;
  let rival: Client;
  let sql: ReturnType<typeof ownerQuery>;

  /** Waits until an API backend is waiting for advisory lock `key` (in this file's database: the server is shared). */
  const apiWaitsFor = (key: number) =>
    waitFor(
      `an API transaction waiting for lock ${key}`,
      async () => (await sql<{ n: number }>(`select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
           where d.datname = current_database() and l.locktype = 'advisory' and l.objid = $1 and not l.granted`, [key]))[0]?.n === 1,
      15_000,
      25,
    );

  /**
   * Puts the rival in the API transaction's way until PostgreSQL has broken `rounds` deadlocks
   * with it: each round the transaction holds FIRST and waits for SECOND (the rival's) while the
   * rival asks for FIRST. Returns with the rival holding both locks.
   */
  async function deadlock(rounds: number): Promise<void> {
    for (let round = 1; round <= rounds; round++) {
      // A retry first waits for FIRST, which the rival won in the round before: hand it over.
      if (round > 1) {
        await apiWaitsFor(FIRST);
        await rival.query('select pg_advisory_unlock($1)', [FIRST]);
      }
      await apiWaitsFor(SECOND);
      // Blocks until PostgreSQL aborts the API's transaction (40P01) and FIRST is free.
      await rival.query('select pg_advisory_lock($1)', [FIRST]);
    }
  }

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'deadlock');
    sql = ownerQuery(t.db);
    await sql(`create function test_deadlock_bait() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock(${FIRST});
        perform pg_advisory_xact_lock(${SECOND});
        return new;
      end $$`);
    await sql('create trigger test_deadlock_bait before insert on minds for each row execute function test_deadlock_bait()');
    rival = new Client({ connectionString: t.db.ownerUrl });
    await rival.connect();
    await rival.query(`set deadlock_timeout = '60s'`);
  });

  afterEach(() => rival.query('select pg_advisory_unlock_all()'));

  afterAll(async () => {
    await rival?.end();
    await t?.close();
  });

  const createMind = (name: string) =>
    t
      .http()
      .post('/v1/minds')
      .set('Authorization', `Bearer ${f.token}`)
      .send({ name })
      .then((res) => res);

  it('once: TenantDb runs the unit again and the request succeeds', async () => {
    await rival.query('select pg_advisory_lock($1)', [SECOND]);
    const answer = createMind('broken once');
    await deadlock(1);
    await rival.query('select pg_advisory_unlock_all()');
    expect((await answer).status).toBe(201);
  });

  it('three times (every attempt): 503 with Retry-After and the usual error body, nothing stored', async () => {
    await rival.query('select pg_advisory_lock($1)', [SECOND]);
    const answer = createMind('broken thrice');
    await deadlock(3);
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.stringMatching(/retry/i), requestId: expect.any(String) });
    await rival.query('select pg_advisory_unlock_all()');
    expect(await sql(`select 1 from minds where name = 'broken thrice'`)).toEqual([]);
  });
});

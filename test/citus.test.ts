import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CompiledQuery, Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { Client, Pool } from 'pg';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { AssociationsRepository, distributeOnCitus, MemoriesRepository, migrateToLatest, migrationsDir, MindStatsRepository, openOwnerDatabase, RetrievalRepository, SqlFileMigrationProvider, TenantDb, TenantsRepository, vectorLiteral, type DB } from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { AssociationJob, FanOutJob } from '@engram/jobs';
import { QueueName } from '@engram/queues';
import { HybridSearch, LifecycleSettings, MemoryWriter, systemScope } from '@engram/services';
import { createApp } from '../apps/api/src/create-app';
import { NO_RATE_LIMITS, NO_SCHEDULES } from './support/env';
import { isolationMatrix } from './support/isolation-matrix';
import { ageMemories, fixtureWriter, seedMemories, type MemorySeed } from './support/memory-fixtures';
import { isDistributed, notARouterQuery, recordStatementPlans, type PlannedStatement } from './support/statement-plans';
import { asAgent, asUser, createTenant, exportText, TEST_JWT_SECRET, type TenantFixture, type TestApp } from './support/test-app';

// Issue 17: the service on Citus. A private cluster (scripts/citus-cluster.sh: a coordinator and
// two workers) in a directory of this run; its `postgres` database, which has the citus extension,
// is migrated (the migrator then distributes the tables by tenant: libs/db/src/citus.ts), and the
// API runs against the coordinator as engram_app. Citus must be installed
// (scripts/provision-citus.sh, which .ci/run runs).
const execFileAsync = promisify(execFile);
const script = resolve(__dirname, '..', 'scripts', 'citus-cluster.sh');
const citusDir = mkdtempSync(join(tmpdir(), 'engram-citus-test-'));
const cluster = (command: string) => execFileAsync(script, [command], { env: { ...process.env, CITUS_DIR: citusDir }, timeout: 120_000 });

// Where Citus cannot be had at all (not installed, and no vendored source to build it from, e.g.
// a machine outside this workplace), the suite says so and is skipped; with the source present
// and Citus not installed it runs, and fails, telling to run scripts/provision-citus.sh.
const citusInstalled = (() => {
  try {
    const lib = execFileSync(process.env.PG_CONFIG ?? '/usr/lib/postgresql/15/bin/pg_config', ['--pkglibdir'], { encoding: 'utf8' }).trim();
    return existsSync(join(lib, 'citus.so'));
  } catch {
    return false;
  }
})();
const citusSource = [process.env.CITUS_SOURCE, resolve(__dirname, '..', '..', 'shared', 'vendor', 'citus'), '/work/shared/vendor/citus']
  .filter((d): d is string => d !== undefined)
  .some((d) => existsSync(join(d, 'citus-13.2.2.tar.gz')));
if (!citusInstalled && !citusSource) {
  // eslint-disable-next-line no-console
  console.warn('test/citus.test.ts SKIPPED: Citus is not installed and its vendored source (../shared/vendor/citus or CITUS_SOURCE) is absent');
}
const describeOnCitus = citusInstalled || citusSource ? describe : describe.skip;

describeOnCitus('on a Citus cluster (coordinator + two workers)', () => {
  let ownerUrl: string;
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;

  const owner = async <T>(query: string, params: unknown[] = []): Promise<T[]> => {
    const c = new Client({ connectionString: ownerUrl });
    await c.connect();
    try {
      return (await c.query(query, params)).rows as T[];
    } finally {
      await c.end();
    }
  };

  /**
   * The statements of a unit of work that are not single-shard router queries, each with its
   * plan; those matching `subplansKnown` may instead be planned as distributed subplans, as long
   * as every step of them is single-shard (task count 1).
   */
  const notRouterQueries = async (name: string, statements: PlannedStatement[], subplansKnown: readonly RegExp[] = []): Promise<string[]> => {
    const definers = (await owner<{ name: string }>(`select proname as name from pg_proc where prosecdef and pronamespace = 'public'::regnamespace`)).map((r) => r.name);
    return statements.flatMap((s) => {
      const why = notARouterQuery(s, definers);
      if (why === 'a distributed subplan' && subplansKnown.some((re) => re.test(s.sql))) return [];
      return why ? [`${name}: ${why}: ${s.sql.replace(/\s+/g, ' ').slice(0, 200)}\n${s.plan}`] : [];
    });
  };
  /**
   * Known, and left as they are: the forgetting sweep's statements that announce what they change
   * (MemorySweepsRepository softForget, evict, announceExpired: a modifying CTE whose outbox step
   * inserts the webhook deliveries from it) are not one router query on Citus but distributed
   * subplans, each step on the tenant's shard alone (task count 1) with its rows passed through
   * the coordinator.
   */
  const SWEEP_SUBPLANS = [/^\s*with rows as \(\s*(update memories set forgotten_at|delete from memories|update memories set expiry_announced_at)\b/];

  beforeAll(async () => {
    try {
      ownerUrl = (await cluster('start')).stdout.trim();
    } catch (error) {
      throw new Error(`the private Citus cluster did not start (is Citus installed? run scripts/provision-citus.sh): ${String(error)}`);
    }
    const migrator = openOwnerDatabase(ownerUrl);
    try {
      await migrateToLatest(migrator);
    } finally {
      await migrator.destroy();
    }
    const appUrl = new URL(ownerUrl);
    appUrl.username = 'engram_app';
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: appUrl.toString(),
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_POOL_MAX: '5',
      ...NO_SCHEDULES,
      ...NO_RATE_LIMITS,
    });
    const app = await createApp(config);
    await app.init();
    const server = app.getHttpServer();
    t = { app, config, db: undefined as never, http: () => request(server), close: () => app.close() };
    a = await createTenant(t, 'alice');
    b = await createTenant(t, 'bob');
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await cluster('stop').catch(() => undefined);
    rmSync(citusDir, { recursive: true, force: true });
  }, 60_000);

  it('distributes every tenant table by tenant, co-located with tenants; users is a reference table', async () => {
    const rows = await owner<{ table: string; method: string; colocation: number }>(
      `select logicalrelid::text as table, partmethod as method, colocationid as colocation from pg_dist_partition order by 1`,
    );
    const tenants = rows.find((r) => r.table === 'tenants')!;
    expect(tenants.method).toBe('h');
    expect(rows.find((r) => r.table === 'users')?.method).toBe('n');
    const distributed = rows.filter((r) => r.method === 'h').map((r) => r.table);
    expect(distributed.sort()).toEqual(
      ['memories', 'memory_associations', 'memory_tombstones', 'memory_versions', 'messages', 'mind_keys', 'minds', 'service_keys', 'stm_entries', 'tenants', 'webhook_deliveries', 'webhook_endpoints'].sort(),
    );
    expect(new Set(rows.filter((r) => r.method === 'h').map((r) => r.colocation))).toEqual(new Set([tenants.colocation]));
  });

  it('serves keyed writes, search, recall and a conversation for a tenant', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'office_wifi', content: 'The office wifi password is orange-llama-42', tags: ['office'] }).expect(201);
    await t.http().post('/v1/memory').set(asUser(a)).send({ category: 'preference', key: 'coffee', content: 'Alice drinks her coffee black' }).expect(201);
    const updated = await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'office_wifi', content: 'The office wifi password is purple-otter-7' }).expect(200);
    expect(updated.body.id).toBe(created.body.id);
    const history = await t.http().get(`/v1/memory/${created.body.id}/history`).set(asUser(a)).expect(200);
    expect(JSON.stringify(history.body)).toContain('orange-llama-42');

    const search = await t.http().get('/v1/memory/search').query({ q: 'wifi password' }).set(asAgent(a)).expect(200);
    expect(JSON.stringify(search.body)).toContain('purple-otter-7');
    const recall = await t.http().get('/v1/memory/recall').set(asAgent(a)).expect(200);
    expect(recall.text || JSON.stringify(recall.body)).toContain('coffee black');

    await t.http().post('/v1/conversations/c1/messages').set(asAgent(a)).send({ messages: [{ content: 'My sister Ana lives in Lisbon', importance: 0.9 }] }).expect(201);
    const stm = await t.http().get('/v1/conversations/c1/stm').set(asAgent(a)).expect(200);
    expect(JSON.stringify(stm.body)).toContain('Lisbon');
  });

  it('keeps tenant B out of tenant A', async () => {
    const secret = await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'secret', content: 'Alice keeps the spare key under the blue pot' }).expect(201);
    await t.http().get(`/v1/memory/${secret.body.id}`).set(asAgent(b)).expect(404);
    await t.http().get(`/v1/memory/${secret.body.id}`).set(asUser(b, a.mindId)).expect(404);
    const search = await t.http().get('/v1/memory/search').query({ q: 'spare key blue pot' }).set(asAgent(b)).expect(200);
    expect(JSON.stringify(search.body)).not.toContain('blue pot');
    const list = await t.http().get('/v1/memory').set(asUser(b)).expect(200);
    expect(JSON.stringify(list.body)).not.toContain('Alice');
    await t.http().get(`/v1/minds/${a.mindId}/keys`).set({ Authorization: `Bearer ${b.token}` }).expect(404);
    // The e-mail stays unique across tenants (users is a reference table keeping users_email_key).
    await t.http().post('/v1/auth/register').send({ email: a.email, password: 'correct horse battery', tenant_name: 'again' }).expect(409);
    // And the row-level security policies hold on the workers: as engram_app with B's tenant set,
    // no row of A in any shard.
    const c = new Client({ connectionString: ownerUrl });
    await c.connect();
    try {
      await c.query('set role engram_app');
      await c.query('begin');
      await c.query(`set local citus.propagate_set_commands = 'local'`);
      await c.query(`set local app.tenant_id = '${b.tenantId}'`);
      const { rows } = await c.query<{ n: string }>(`select count(*) as n from memories where tenant_id = $1`, [a.tenantId]);
      expect(Number(rows[0]!.n)).toBe(0);
      await expect(c.query(`insert into minds (tenant_id, id, name) values ($1, gen_random_uuid(), 'intruder')`, [a.tenantId])).rejects.toThrow(/row-level security/);
      await c.query('rollback');
    } finally {
      await c.end();
    }
  });

  it('a unit of work that writes and then searches finds what it wrote (the full-text match runs on the worker)', async () => {
    // No route does this today (a search's own transaction writes only after its match; the
    // conversation stream's look-ups count no statistics), so it is driven here through the
    // services: a keyed write, then a counted search, whose document frequencies call the
    // security-definer engram_text_match. Run alone on the coordinator, that call would read the
    // shard group this transaction had just modified as another role, which Citus refuses.
    const tenantDb = t.app.get(TenantDb);
    const config = await t.app.get(LifecycleSettings).forTenant(a.tenantId);
    const scope = systemScope(a.tenantId, a.mindId);
    const found = await tenantDb.run(a.tenantId, async (tx) => {
      await t.app.get(MemoryWriter).upsert(tx, scope, { category: 'fact', key: 'locker', content: 'The gym locker combination is 2931' }, { score: 0.5, path: 'caller' }, { model: 'none', vector: null }, new Date(), config);
      const hits = await t.app.get(HybridSearch).search(tx, a.mindId, { q: 'gym locker combination', mode: 'any', vector: null, filter: {}, limit: 5 }, config, { access: false });
      return hits.map((h) => h.row.content);
    });
    expect(found).toEqual(['The gym locker combination is 2931']);
    // And it committed as one unit: the memory is there for the next request.
    const search = await t.http().get('/v1/memory/search').query({ q: 'locker combination' }).set(asAgent(a)).expect(200);
    expect(search.body.items.map((m: { key: string }) => m.key)).toEqual(['locker']);
  });

  it('a vector scan\'s settings reach the worker that runs the search (SET LOCAL is replayed there; set_config() was not)', async () => {
    const seen = await t.app.get(TenantDb).run(a.tenantId, async (tx) => {
      await t.app.get(RetrievalRepository).configureScan(tx, { exact: false, efSearch: 170 });
      // A router query: its target list is evaluated on the worker holding the tenant's shard.
      const { rows } = await sql<{ ef: string; iterative: string; sort: string }>`
        select current_setting('hnsw.ef_search') as ef, current_setting('hnsw.iterative_scan') as iterative, current_setting('enable_sort') as sort
        from memories where tenant_id = ${a.tenantId} limit 1`.execute(tx.trx);
      return rows[0];
    });
    expect(seen).toEqual({ ef: '170', iterative: 'relaxed_order', sort: 'off' });
  });

  it('every statement of a keyed write, a search, a recall and a conversation is a single-shard router query (EXPLAIN: Task Count: 1)', async () => {
    const requests: Array<[string, () => Promise<unknown>]> = [
      ['keyed write (create)', () => t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'bike', content: 'The bike lock code is 5512', tags: ['bike'] }).expect(201)],
      ['keyed write (update)', () => t.http().post('/v1/memory').set(asUser(a)).send({ category: 'fact', key: 'bike', content: 'The bike lock code is 7781' }).expect(200)],
      ['search', () => t.http().get('/v1/memory/search').query({ q: 'bike lock code' }).set(asAgent(a)).expect(200)],
      ['search, all words', () => t.http().get('/v1/memory/search').query({ q: 'bike lock', mode: 'all' }).set(asAgent(a)).expect(200)],
      ['recall', () => t.http().get('/v1/memory/recall').set(asAgent(a)).expect(200)],
      ['recall with a question', () => t.http().get('/v1/memory/recall').query({ q: 'bike lock' }).set(asAgent(a)).expect(200)],
      ['conversation', () => t.http().post('/v1/conversations/plans/messages').set(asAgent(a)).send({ messages: [{ content: 'My bike is the blue one by the door', importance: 0.9 }, { content: 'The bike lock code is 7781', importance: 0.9 }] }).expect(201)],
    ];
    const offenders: string[] = [];
    const reached: Record<string, number> = {};
    let textMatches = 0;
    for (const [name, send] of requests) {
      const { statements } = await recordStatementPlans(send);
      const distributed = statements.filter(isDistributed);
      reached[name] = distributed.length;
      textMatches += distributed.filter((s) => s.sql.includes('engram_text_match')).length;
      offenders.push(...(await notRouterQueries(name, statements)));
    }
    expect(offenders).toEqual([]);
    // Not vacuous: every request's unit of work reached the shards, and the full-text matches
    // (search's statement and its document frequencies) were among the statements checked.
    for (const [name, n] of Object.entries(reached)) expect([name, n > 0]).toEqual([name, true]);
    expect(textMatches).toBeGreaterThanOrEqual(3);
  });

  describe('lifecycle sweeps across tenants', () => {
    // test/background.test.ts's memories, in two tenants of the cluster; thirty days pass for
    // "dimming" in the first only. The sweeps run as the scheduler runs them without Redis: one
    // fan-out over every tenant (the security-definer tenant list), each tenant in its own units
    // of work. Expected values are background.test.ts's on PostgreSQL: the same formulas, per tenant.
    let s1: TenantFixture;
    let s2: TenantFixture;
    const DAY = 86_400_000;
    const seeds = (now: number): MemorySeed[] => [
      { key: 'faded', content: 'A minor detail from long ago', importance: 0.1, storedAt: new Date(now - 400 * DAY) },
      { key: 'pinned', content: 'Allergic to penicillin', importance: 0.1, priority: 'critical', storedAt: new Date(now - 400 * DAY) },
      { key: 'fresh', content: 'Started a new job today', importance: 0.9 },
      { key: 'dimming', content: 'Had pasta for lunch', importance: 0.5 },
      { key: 'settled', content: 'Moved to Lisbon last month', importance: 0.85, storedAt: new Date(now - 40 * DAY) },
    ];
    const state = (f: TenantFixture) =>
      owner<{ key: string; tier: string; forgotten: boolean; storage_location: string }>(
        `select key, tier, forgotten_at is not null as forgotten, storage_location from memories where tenant_id = $1 order by key`,
        [f.tenantId],
      );
    const tombstones = (f: TenantFixture) => owner<{ key: string; reason: string }>(`select key, reason from memory_tombstones where tenant_id = $1 order by key`, [f.tenantId]);
    const sweepAll = async (queue: QueueName) => {
      // Every statement of every tenant's units of work is checked for a router query, too.
      const { result: report, statements } = await recordStatementPlans(() => t.app.get(FanOutJob).runAll(queue));
      const [all] = await owner<{ n: number }>(`select count(*)::int as n from tenants`);
      expect({ queue, tenants: report.tenants, failed: report.failed, notRouterQueries: await notRouterQueries(queue, statements, SWEEP_SUBPLANS) }).toEqual({ queue, tenants: all!.n, failed: [], notRouterQueries: [] });
      expect(statements.filter(isDistributed).length).toBeGreaterThanOrEqual(all!.n);
    };

    beforeAll(async () => {
      s1 = await createTenant(t, 'sweep-one');
      s2 = await createTenant(t, 'sweep-two');
      const now = Date.now();
      await seedMemories(fixtureWriter(t.app), s1, seeds(now));
      await seedMemories(fixtureWriter(t.app), s2, seeds(now));
    });

    it('tiering, then forgetting, then systems consolidation reach the same states as on PostgreSQL, each tenant by its own memories', async () => {
      await sweepAll(QueueName.Tiering);
      const tiers = { dimming: 'hot', faded: 'archive', fresh: 'hot', pinned: 'archive', settled: 'archive' };
      for (const f of [s1, s2]) expect(Object.fromEntries((await state(f)).map((m) => [m.key, m.tier]))).toEqual(tiers);

      const [dimming] = await owner<{ id: string }>(`select id from memories where tenant_id = $1 and key = 'dimming'`, [s1.tenantId]);
      await ageMemories(fixtureWriter(t.app), s1.tenantId, [dimming!.id], 30);
      await sweepAll(QueueName.Forgetting);
      // "faded" (archived) is forgotten and evicted in both; "dimming" forgotten only where it aged.
      const forgotten = async (f: TenantFixture) => (await state(f)).filter((m) => m.forgotten).map((m) => m.key);
      expect(await forgotten(s1)).toEqual(['dimming']);
      expect(await forgotten(s2)).toEqual([]);
      for (const f of [s1, s2]) {
        expect((await state(f)).map((m) => m.key)).toEqual(['dimming', 'fresh', 'pinned', 'settled']);
        expect(await tombstones(f)).toEqual([{ key: 'faded', reason: 'evicted' }]);
      }

      await sweepAll(QueueName.SystemsConsolidation);
      const places = async (f: TenantFixture) => Object.fromEntries((await state(f)).map((m) => [m.key, m.storage_location]));
      expect(await places(s1)).toEqual({ dimming: 'neocortex', fresh: 'hippocampus', pinned: 'neocortex', settled: 'neocortex' });
      expect(await places(s2)).toEqual({ dimming: 'hippocampus', fresh: 'hippocampus', pinned: 'neocortex', settled: 'neocortex' });

      // Once settled (time moved for "dimming" since it was tiered: background.test.ts runs the
      // same round), the sweeps run again (a retried job) change nothing.
      for (const queue of [QueueName.Tiering, QueueName.Forgetting, QueueName.SystemsConsolidation]) await sweepAll(queue);
      const before = [await state(s1), await state(s2), await tombstones(s1), await tombstones(s2)];
      for (const queue of [QueueName.Tiering, QueueName.Forgetting, QueueName.SystemsConsolidation]) await sweepAll(queue);
      expect([await state(s1), await state(s2), await tombstones(s1), await tombstones(s2)]).toEqual(before);
    });
  });

  describe('data rights', () => {
    // docs/data-rights.md on the cluster: export, import into a fresh tenant, purging a mind,
    // deleting a tenant (its rows in every co-located shard and its users in the reference table).
    type Line = Record<string, unknown> & { type: string };
    let d: TenantFixture;
    let dSecondMind: string;
    const bearer = (f: TenantFixture) => ({ Authorization: `Bearer ${f.token}` });
    const linesOf = async (f: TenantFixture): Promise<{ text: string; lines: Line[] }> => {
      const { text } = await exportText(t, f.token);
      expect(text.endsWith('\n')).toBe(true);
      return { text, lines: text.trimEnd().split('\n').map((l) => JSON.parse(l) as Line) };
    };
    const importInto = (f: TenantFixture, text: string) => t.http().post('/v1/tenant/import').set(bearer(f)).set('Content-Type', 'application/x-ndjson').send(text);
    /** The tenant's rows in every table with a tenant_id, and in tenants (as the owner: every shard). */
    const countsOf = async (tenantId: string): Promise<Record<string, number>> => {
      // Every table with a tenant_id (shards, named <table>_<shard id>, left out where visible).
      const tables = await owner<{ table_name: string }>(
        `select c.relname as table_name from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
         where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and c.relname !~ '_[0-9]+$' order by 1`,
      );
      const out: Record<string, number> = { tenants: (await owner<{ n: number }>('select count(*)::int as n from tenants where id = $1', [tenantId]))[0]!.n };
      for (const { table_name } of tables) out[table_name] = (await owner<{ n: number }>(`select count(*)::int as n from "${table_name}" where tenant_id = $1`, [tenantId]))[0]!.n;
      return out;
    };
    /** What a round trip keeps, by (mind name, category, key): the content and its history. */
    const normalized = (lines: Line[]) => {
      const mindName = new Map(lines.filter((l) => l.type === 'mind').map((l) => [l.id, l.name]));
      return lines
        .filter((l) => l.type === 'memory')
        .map((m) => ({
          at: `${String(mindName.get(m.mind_id))}/${String(m.category)}/${String(m.key)}`,
          content: m.content,
          verified: m.verified,
          history: lines.filter((v) => v.type === 'memory_version' && v.memory_id === m.id).map((v) => [v.version, v.change, v.content]),
        }))
        .sort((x, y) => x.at.localeCompare(y.at));
    };

    beforeAll(async () => {
      d = await createTenant(t, 'rights');
      await t.http().patch('/v1/tenant/settings/lifecycle').set(bearer(d)).send({ forgetting: { soft_threshold: 0.25 } }).expect(200);
      await t.http().post('/v1/memory').set(asAgent(d)).send({ category: 'fact', key: 'sky', content: 'The sky is blue' }).expect(201);
      await t.http().post('/v1/memory').set(asAgent(d)).send({ category: 'fact', key: 'sky', content: 'The sky is grey today' }).expect(200);
      const name = await t.http().post('/v1/memory').set(asAgent(d)).send({ category: 'identity', key: 'user_name', content: 'Michael' }).expect(201);
      await t.http().post(`/v1/memory/${name.body.id}/verify`).set(asUser(d)).expect(200);
      await t.http().post('/v1/conversations/c1/messages').set(asAgent(d)).send({ messages: [{ content: 'I moved to Berlin last week and love it' }] }).expect(201);
      dSecondMind = (await t.http().post('/v1/minds').set(bearer(d)).send({ name: 'second' }).expect(201)).body.id;
      await t.http().post('/v1/memory').set(asUser(d, dSecondMind)).send({ category: 'skill', key: 'typing', content: 'Types fast' }).expect(201);
    });

    it('exports exactly the tenant’s minds, memories and versions, from every shard of it, and no other tenant’s', async () => {
      const { text, lines } = await linesOf(d);
      expect(lines[0]).toMatchObject({ type: 'tenant', format: 'engram-export', id: d.tenantId, name: 'rights' });
      expect(lines.find((l) => l.type === 'settings')).toEqual({ type: 'settings', lifecycle: { forgetting: { soft_threshold: 0.25 } } });
      expect(lines.filter((l) => l.type === 'mind').map((l) => l.id).sort()).toEqual([d.mindId, dSecondMind].sort());
      const counts = await countsOf(d.tenantId);
      expect(lines.filter((l) => l.type === 'memory')).toHaveLength(counts['memories']!);
      expect(lines.filter((l) => l.type === 'memory_version')).toHaveLength(counts['memory_versions']!);
      expect(normalized(lines).map((m) => [m.at, m.content, m.history.length])).toEqual([
        ['rights mind/fact/sky', 'The sky is grey today', 2],
        ['rights mind/identity/user_name', 'Michael', 2],
        ['second/skill/typing', 'Types fast', 1],
      ]);
      for (const other of ['Alice', 'orange-llama', a.mindId, b.mindId, a.tenantId]) expect(text).not.toContain(other);
    });

    it('an import into a fresh tenant reproduces the memories and their histories; a second import changes nothing', async () => {
      const { text, lines } = await linesOf(d);
      const e = await createTenant(t, 'rights-copy');
      expect((await importInto(e, text).expect(200)).body).toEqual({ minds: { created: 2, matched: 0 }, memories: { created: 3, updated: 0, unchanged: 0 }, versions: { created: 5 }, settings: 'replaced' });
      const copied = (await linesOf(e)).lines;
      expect(normalized(copied)).toEqual(normalized(lines));
      const counts = await countsOf(e.tenantId);
      expect((await importInto(e, text).expect(200)).body).toMatchObject({ memories: { created: 0, updated: 0, unchanged: 3 }, versions: { created: 0 } });
      expect(await countsOf(e.tenantId)).toEqual(counts);
      // Imported memories are found like any other (the full-text match on the worker).
      const search = await t.http().get('/v1/memory/search').query({ q: 'sky grey' }).set(asUser(e, copied.find((l) => l.type === 'mind' && l.name === 'rights mind')!.id as string)).expect(200);
      expect(search.body.items.map((m: { content: string }) => m.content)).toEqual(['The sky is grey today']);
    });

    it('purging a mind removes exactly its memories and versions; deleting a tenant removes every row of it and ends its credentials', async () => {
      const e = await createTenant(t, 'rights-gone');
      await importInto(e, (await linesOf(d)).text).expect(200);
      const [mind] = await owner<{ id: string }>(`select id from minds where tenant_id = $1 and name = 'rights mind'`, [e.tenantId]);
      const others = { d: await countsOf(d.tenantId), a: await countsOf(a.tenantId), b: await countsOf(b.tenantId) };
      const before = await countsOf(e.tenantId);
      const purged = await t.http().delete(`/v1/minds/${mind!.id}/memories`).set(bearer(e)).expect(200);
      expect(purged.body).toEqual({ mind_id: mind!.id, memories: 2, versions: 4, tombstones: 0, stm_entries: 0, webhook_deliveries: 0 });
      expect(await countsOf(e.tenantId)).toEqual({ ...before, memories: before['memories']! - 2, memory_versions: before['memory_versions']! - 4 });

      await t.http().post('/v1/conversations/c9/messages').set(asAgent(e)).send({ messages: [{ content: 'I really love the new office in Berlin' }] }).expect(201);
      const doomed = await countsOf(e.tenantId);
      expect(doomed).toMatchObject({ tenants: 1, users: 1, minds: 3, mind_keys: 1, memories: 1, memory_versions: 1, messages: 1 });
      await t.http().delete('/v1/tenant').query({ confirm: 'rights-gone' }).set(bearer(e)).expect(204);
      const after = await countsOf(e.tenantId);
      expect(Object.entries(after).filter(([, n]) => n !== 0)).toEqual([]);
      expect(Object.keys(after).sort()).toEqual(Object.keys(doomed).sort());
      await t.http().get('/v1/auth/me').set(bearer(e)).expect(401);
      await t.http().get('/v1/memory').set(asAgent(e)).expect(401);
      await t.http().post('/v1/auth/login').send({ email: e.email, password: 'correct horse battery' }).expect(401);
      expect({ d: await countsOf(d.tenantId), a: await countsOf(a.tenantId), b: await countsOf(b.tenantId) }).toEqual(others);
    });
  });

  describe('the isolation matrix on the cluster', () => {
    isolationMatrix(async () => ({ t, owner, close: async () => undefined }));
  });

  describe('the association graph', () => {
    // Issue 19 on the cluster: the job links a tenant's memories inside its shard group (`link`
    // in one statement, its named things matched by engram_text_match on the worker), the fan-out
    // finds the tenants to link across every shard, search follows the links inside its one
    // statement, deleting a memory takes its links along (foreign keys between co-located
    // shards), and no tenant reaches another's links. After the other suites here, whose tenants'
    // memories the fan-out links too.
    let g: TenantFixture;
    let h: TenantFixture;
    let idle: TenantFixture;
    const ids = new Map<TenantFixture, Record<string, string>>();
    // Ana in two memories and Zanzibar in two (of three: rare enough at entity_max_share's
    // floor of 2), one conversation's positions 1..3.
    const TRIP = [
      { key: 'flight', content: 'Ana booked the flight to Zanzibar for the summer' },
      { key: 'hotel', content: 'The hotel in Zanzibar has a rooftop pool' },
      { key: 'packing', content: 'Ana packed sunscreen and a snorkel' },
    ];
    type NamedLink = [memory: string, relation: string, target: string];
    /** The tenant's links by the keys of their memories (as the owner: every shard), sorted. */
    const linksOf = async (f: TenantFixture, relations = ['precedes', 'follows', 'shares_entity', 'similar_to']): Promise<NamedLink[]> =>
      (
        await owner<{ memory: string; relation: string; target: string }>(
          `select m.key as memory, a.relation, t.key as target from memory_associations a
           join memories m on m.tenant_id = a.tenant_id and m.id = a.memory_id
           join memories t on t.tenant_id = a.tenant_id and t.id = a.target_id
           where a.tenant_id = $1 and a.relation = any($2) order by 1, 2, 3`,
          [f.tenantId, relations],
        )
      ).map((r): NamedLink => [r.memory, r.relation, r.target]);
    // similar_to depends on the hashing embedder's vectors; the other relations follow from the
    // conversation's order and the names.
    const RULED: NamedLink[] = [
      ['flight', 'follows', 'hotel'],
      ['flight', 'shares_entity', 'hotel'],
      ['flight', 'shares_entity', 'packing'],
      ['hotel', 'follows', 'packing'],
      ['hotel', 'precedes', 'flight'],
      ['hotel', 'shares_entity', 'flight'],
      ['packing', 'precedes', 'hotel'],
      ['packing', 'shares_entity', 'flight'],
    ];
    const waiting = () => t.app.get(TenantDb).runWithoutTenant((db) => t.app.get(TenantsRepository).withUnlinkedMemories(db));
    /** Runs `work`, checking that every statement of its units of work is a router query and that some reached the shards. */
    const routed = async <T>(name: string, work: () => Promise<T>): Promise<{ result: T; statements: PlannedStatement[] }> => {
      const recorded = await recordStatementPlans(work);
      expect({ name, offenders: await notRouterQueries(name, recorded.statements) }).toEqual({ name, offenders: [] });
      expect([name, recorded.statements.filter(isDistributed).length > 0]).toEqual([name, true]);
      return recorded;
    };

    beforeAll(async () => {
      g = await createTenant(t, 'graph');
      h = await createTenant(t, 'graph-other');
      idle = await createTenant(t, 'graph-idle');
      const { vectors } = await t.app.get(RequestEmbedder).tryEmbed(TRIP.map((m) => m.content));
      for (const f of [g, h]) {
        const seeded = await seedMemories(
          fixtureWriter(t.app),
          f,
          TRIP.map((m, i) => ({ ...m, state: { embedding: vectorLiteral(vectors[i]!), embedding_status: 'ready' as const, temporal_context: 'trip', temporal_position: i + 1 } })),
        );
        ids.set(f, Object.fromEntries(TRIP.map((m, i) => [m.key, seeded[i]!])));
      }
    });

    it('the fan-out look-up (engram_tenants_with_unlinked_memories) finds the tenants with memories to link, across the shards', async () => {
      const found = await waiting();
      expect(found).toEqual(expect.arrayContaining([g.tenantId, h.tenantId]));
      expect(found).not.toContain(idle.tenantId);
      expect(await t.app.get(AssociationJob).tenantsToRun([idle.tenantId, g.tenantId, h.tenantId])).toEqual([g.tenantId, h.tenantId]);
    });

    it('the association job links a tenant’s memories, every statement a single-shard router query', async () => {
      const { result: report, statements } = await routed('association job', () => t.app.get(AssociationJob).run(g.tenantId));
      // The set-based insert, with its engram_text_match, was among the statements checked.
      expect(statements.some((s) => s.sql.includes('insert into memory_associations') && s.sql.includes('engram_text_match'))).toBe(true);
      const links = await linksOf(g);
      expect(report).toEqual({ linked: 3, links: links.length });
      expect(await linksOf(g, ['precedes', 'follows', 'shares_entity'])).toEqual(RULED);
      expect(await linksOf(h)).toEqual([]);
      const found = await waiting();
      expect(found).not.toContain(g.tenantId);
      expect(found).toContain(h.tenantId);
      // Run again, the job finds nothing to link.
      expect(await t.app.get(AssociationJob).run(g.tenantId)).toEqual({ linked: 0, links: 0 });
    });

    it('the fan-out links every tenant waiting, each in its own shard group', async () => {
      const before = await waiting();
      const { result: report } = await routed('association fan-out', () => t.app.get(FanOutJob).runAll(QueueName.Associations));
      expect({ tenants: report.tenants, failed: report.failed }).toEqual({ tenants: before.length, failed: [] });
      expect(await waiting()).toEqual([]);
      expect(await linksOf(h, ['precedes', 'follows', 'shares_entity'])).toEqual(RULED);
    });

    it('listing, counting and a search that follows links are single-shard router queries; the search brings memories by their links', async () => {
      const tenantDb = t.app.get(TenantDb);
      const associations = t.app.get(AssociationsRepository);
      const { flight, hotel, packing } = ids.get(g)!;
      const { result: listed } = await routed('list', () => tenantDb.run(g.tenantId, (tx) => associations.list(tx, g.mindId, flight!, { limit: 20 })));
      const keyOf = new Map(Object.entries(ids.get(g)!).map(([k, id]) => [id, k]));
      expect(listed.filter((l) => l.relation !== 'similar_to').map((l) => [keyOf.get(l.memory_id), l.relation]).sort()).toEqual([
        ['hotel', 'follows'],
        ['hotel', 'shares_entity'],
        ['packing', 'shares_entity'],
      ]);
      const { result: pages } = await routed('list, one relation, after a cursor', () =>
        tenantDb.run(g.tenantId, async (tx) => {
          const first = await associations.list(tx, g.mindId, flight!, { limit: 1, relation: 'shares_entity' });
          const last = first[0]!;
          const rest = await associations.list(tx, g.mindId, flight!, { limit: 5, relation: 'shares_entity', after: { weight: last.weight, relation: last.relation, memory_id: last.memory_id } });
          return [...first, ...rest].map((l) => keyOf.get(l.memory_id));
        }),
      );
      expect(pages.sort()).toEqual(['hotel', 'packing']);

      const { result: stats } = await routed('stats (link counts)', () => t.http().get('/v1/memory/stats').set(asAgent(g)).expect(200));
      expect(stats.body.associations).toEqual({ links: (await linksOf(g)).length, unlinked: 0 });

      // "snorkel" is in the packing memory alone: the others come by its links (the expansion is
      // off by default).
      await t.http().patch('/v1/tenant/settings/lifecycle').set({ Authorization: `Bearer ${g.token}` }).send({ associations: { expand: true } }).expect(200);
      const { result: search, statements } = await routed('search following links', () =>
        t.http().get('/v1/memory/search').query({ q: 'snorkel', explain: true }).set(asAgent(g)).expect(200),
      );
      expect(statements.some((s) => isDistributed(s) && s.sql.includes('memory_associations'))).toBe(true);
      type Item = { id: string; explain: { associations: { from: string; relation: string }[] } };
      const items = search.body.items as Item[];
      expect(items[0]!.id).toBe(packing);
      const broughtFlight = items.find((i) => i.id === flight)?.explain.associations ?? [];
      expect(broughtFlight).toEqual(expect.arrayContaining([expect.objectContaining({ from: packing, relation: 'shares_entity' })]));
    });

    it('another tenant never sees the links, nor writes one into the tenant', async () => {
      const theirs = ids.get(g)!;
      const c = new Client({ connectionString: ownerUrl });
      await c.connect();
      try {
        await c.query('set role engram_app');
        await c.query('begin');
        await c.query(`set local citus.propagate_set_commands = 'local'`);
        await c.query(`set local app.tenant_id = '${h.tenantId}'`);
        const { rows } = await c.query<{ mine: number; foreign: number }>(
          `select count(*) filter (where tenant_id = $1)::int as mine, count(*) filter (where tenant_id <> $1)::int as foreign from memory_associations`,
          [h.tenantId],
        );
        expect(rows[0]!.mine).toBeGreaterThan(0);
        expect(rows[0]!.foreign).toBe(0);
        const { rows: direct } = await c.query<{ n: number }>(`select count(*)::int as n from memory_associations where tenant_id = $1`, [g.tenantId]);
        expect(direct[0]!.n).toBe(0);
        await expect(
          c.query(`insert into memory_associations (tenant_id, mind_id, memory_id, target_id, relation, weight) values ($1, $2, $3, $4, 'similar_to', 0.9)`, [g.tenantId, g.mindId, theirs['flight'], theirs['hotel']]),
        ).rejects.toThrow(/row-level security/);
        await c.query('rollback');
      } finally {
        await c.end();
      }
      // Through the repository and the API: h's unit of work asking for g's memory and mind.
      const listed = await t.app.get(TenantDb).run(h.tenantId, (tx) => t.app.get(AssociationsRepository).list(tx, g.mindId, theirs['flight']!, { limit: 20 }));
      expect(listed).toEqual([]);
      const search = await t.http().get('/v1/memory/search').query({ q: 'snorkel', explain: true }).set(asAgent(h)).expect(200);
      const own = new Set(Object.values(ids.get(h)!));
      const seen = (search.body.items as { id: string; explain: { associations: { from: string }[] } }[]).flatMap((i) => [i.id, ...i.explain.associations.map((a) => a.from)]);
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.filter((id) => !own.has(id))).toEqual([]);
    });

    it('deleting a memory deletes the links from and to it (the foreign keys cascade on the shards), a router query', async () => {
      const before = await linksOf(g);
      expect(before.some(([m, , target]) => m === 'hotel' || target === 'hotel')).toBe(true);
      await routed('delete a linked memory', () => t.http().delete(`/v1/memory/${ids.get(g)!['hotel']}`).set(asUser(g)).expect(204));
      expect(await linksOf(g)).toEqual(before.filter(([m, , target]) => m !== 'hotel' && target !== 'hotel'));
      // The other tenant's copy of it keeps its links.
      expect(await linksOf(h, ['precedes', 'follows', 'shares_entity'])).toEqual(RULED);
    });
  });

  describe('an upgrade of a distributed deployment to the association graph and half-precision vectors', () => {
    // A deployment already on Citus (its tables distributed by tenant, rows in them) takes
    // 20261204000000_associations as an upgrade takes it: migrateToLatest on the coordinator,
    // whose DO block distributes memory_associations before its foreign keys. In a database of
    // its own on the cluster's three nodes (citus and vector in each, the workers added to its
    // coordinator), migrated up to the migration before and distributed as the release before did.
    const NAME = 'engram_upgrade';
    const BEFORE = '20261203010000_recall_index';
    const T = '0190a000-0000-7000-8000-00000000a0a1';
    const MIND = '0190a000-0000-7000-8000-00000000a0a2';
    let nodes: { url: string; host: string; port: number; coordinator: boolean }[];
    let upgradeOwner: Kysely<unknown>;
    let upgradeApp: Kysely<DB>;
    let applied: string[];
    let ids: string[];
    const on = async (url: string, statements: string[]): Promise<void> => {
      const c = new Client({ connectionString: url });
      await c.connect();
      try {
        for (const statement of statements) await c.query(statement);
      } finally {
        await c.end();
      }
    };
    const upgraded = async <T>(query: string, params: unknown[] = []): Promise<T[]> => (await upgradeOwner.executeQuery<T>(CompiledQuery.raw(query, params))).rows;
    /** One answer per shard of memory_associations (`%s`: the shard's name), from the workers. */
    const perShard = async (command: string) =>
      (await upgraded<{ result: string }>(`select result from run_command_on_shards('memory_associations', $1) order by shardid`, [command])).map((r) => r.result);
    const job = () => {
      const tenantDb = new TenantDb(upgradeApp);
      const tenants = new TenantsRepository();
      return new AssociationJob(tenantDb, new AssociationsRepository(), new MindStatsRepository(), tenants, new LifecycleSettings(tenants, new MemoriesRepository(), tenantDb), { mode: 'postgres' });
    };

    beforeAll(async () => {
      const urlOf = (host: string, port: number, database: string) => {
        const u = new URL(ownerUrl);
        u.hostname = host;
        u.port = String(port);
        u.pathname = `/${database}`;
        return u.toString();
      };
      nodes = (await owner<{ host: string; port: number; coordinator: boolean }>(`select nodename as host, nodeport as port, groupid = 0 as coordinator from pg_dist_node order by groupid`)).map((n) => ({ ...n, url: urlOf(n.host, n.port, NAME) }));
      for (const n of nodes) {
        await on(urlOf(n.host, n.port, 'postgres'), [`create database ${NAME}`]);
        await on(n.url, ['create extension citus', 'create extension vector']);
      }
      const coordinator = nodes.find((n) => n.coordinator)!;
      await on(coordinator.url, [`select citus_set_coordinator_host('${coordinator.host}', ${coordinator.port})`, ...nodes.filter((n) => !n.coordinator).map((n) => `select citus_add_node('${n.host}', ${n.port})`)]);
      upgradeOwner = openOwnerDatabase(coordinator.url);
      const before = await new Migrator({ db: upgradeOwner, provider: new SqlFileMigrationProvider(migrationsDir()) }).migrateTo(BEFORE);
      if (before.error) throw before.error;
      await distributeOnCitus(upgradeOwner);
      await upgraded(`insert into tenants (id, name) values ($1, 'upgraded')`, [T]);
      await upgraded(`insert into minds (tenant_id, id, name) values ($1, $2, 'upgraded')`, [T, MIND]);
      const appUrl = new URL(coordinator.url);
      appUrl.username = 'engram_app';
      upgradeApp = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: appUrl.toString(), max: 2 }) }) });
      const TRIP = ['Ana booked the flight to Zanzibar for the summer', 'The hotel in Zanzibar has a rooftop pool', 'Ana packed sunscreen and a snorkel'];
      const { vectors } = await t.app.get(RequestEmbedder).tryEmbed(TRIP);
      ids = await seedMemories(
        fixtureWriter(upgradeApp),
        { tenantId: T, mindId: MIND },
        TRIP.map((content, i) => ({ key: `trip_${i + 1}`, content, state: { embedding: vectorLiteral(vectors[i]!), embedding_status: 'ready' as const, temporal_context: 'trip', temporal_position: i + 1 } })),
      );
      // A tag in two Unicode forms, as the release before stored it (migration 20261210000000 composes it).
      await upgraded(`update memories set tags = array[E're\\u0301sume\\u0301', E'r\\u00e9sum\\u00e9', 'trip'] where tenant_id = $1 and key = 'trip_3'`, [T]);
      applied = await migrateToLatest(upgradeOwner);
    }, 180_000);

    afterAll(async () => {
      await upgradeApp?.destroy();
      await upgradeOwner?.destroy();
      // The workers' copies first: the coordinator's drop does not reach them.
      for (const n of [...(nodes ?? [])].reverse()) {
        const u = new URL(n.url);
        u.pathname = '/postgres';
        await on(u.toString(), [`drop database if exists ${NAME} with (force)`]).catch(() => undefined);
      }
    }, 60_000);

    it('applies the migration on the distributed tables: memory_associations distributed by tenant, co-located with tenants, its rows on the shards', async () => {
      expect(applied).toEqual(['20261204000000_associations', '20261205000000_vector_search', '20261206000000_message_order', '20261207000000_search_document', '20261208000000_cjk_characters', '20261209000000_accents', '20261210000000_tag_forms', '20261211000000_version_fields', '20261212000000_digit_groups', '20261213000000_phone_numbers', '20261214000000_restated_at', '20261215000000_quoted_lines', '20261216000000_deliveries_by_memory', '20261217000000_version_importance', '20261218000000_word_parts', '20261219000000_word_parts_hyphens']);
      // Each memory's current version took the memory's own event time and type on its shard (migration 20261211000000).
      expect(await upgraded<{ missing: number }>(`select count(*)::int as missing from memory_versions v join memories m on m.tenant_id = v.tenant_id and m.id = v.memory_id and m.version = v.version where v.tenant_id = $1 and (v.occurred_at is distinct from m.occurred_at or v.memory_type is distinct from m.memory_type)`, [T])).toEqual([{ missing: 0 }]);
      expect(await upgraded<{ n: number }>(`select count(*)::int as n from memory_versions where tenant_id = $1 and occurred_at is not null`, [T])).not.toEqual([{ n: 0 }]);
      // The tags stored in two Unicode forms are one, composed, on the shard that holds them (migration 20261210000000).
      expect(await upgraded<{ tags: string[] }>(`select tags from memories where tenant_id = $1 and key = 'trip_3'`, [T])).toEqual([{ tags: ['r\u00e9sum\u00e9', 'trip'] }]);
      // The search document's new definition reached the workers, where the shards compute it.
      const documents = await upgraded<{ result: string }>(`select result from run_command_on_workers($$select engram_search_document(null, 'user: I moved to Lisbon', array['user', 'travel'])::text$$)`);
      expect(documents.map((d) => d.result)).toEqual([expect.any(String), expect.any(String)]);
      for (const d of documents) expect({ document: d.result, user: d.result.includes("'user'") }).toEqual({ document: d.result, user: false });
      // And its Han characters (migration 20261208000000).
      const characters = await upgraded<{ result: string }>(`select result from run_command_on_workers($$select engram_search_document(null, '我有一只猫', null)::text$$)`);
      for (const d of characters) expect(d.result).toContain("'猫'");
      // And without accents (migration 20261209000000).
      const folded = await upgraded<{ result: string }>(`select result from run_command_on_workers($$select engram_search_document(null, 'Café Müller', null)::text$$)`);
      for (const d of folded) expect(d.result).toContain("'cafe'");
      // The messages' new index reached the shards (one index a shard on each worker).
      const indexes = await upgraded<{ n: number }>(`select count(*)::int as n from run_command_on_workers($$select count(*) from pg_indexes where indexname like 'messages_conversation_time_idx%'$$) w where w.result::int > 0`);
      expect(indexes).toEqual([{ n: 2 }]);
      const rows = await upgraded<{ table: string; method: string; colocation: number }>(`select logicalrelid::text as table, partmethod as method, colocationid as colocation from pg_dist_partition where logicalrelid::text in ('tenants', 'memories', 'memory_associations') order by 1`);
      expect(rows.map((r) => [r.table, r.method])).toEqual([['memories', 'h'], ['memory_associations', 'h'], ['tenants', 'h']]);
      expect(new Set(rows.map((r) => r.colocation)).size).toBe(1);
      // The rows written before the upgrade are there, each to be linked.
      expect(await upgraded<{ n: number }>(`select count(*)::int as n from memories where tenant_id = $1 and associated_at is null`, [T])).toEqual([{ n: 3 }]);
    });

    it('takes half-precision vectors on every shard, with their HNSW index of large minds, and keeps the vectors written before', async () => {
      const types = (await upgraded<{ result: string }>(`select result from run_command_on_shards('memories', $1) order by shardid`, [
        `select format_type(atttypid, atttypmod) from pg_attribute where attrelid = '%s'::regclass and attname = 'embedding'`,
      ])).map((r) => r.result);
      expect(types.length).toBeGreaterThan(1);
      expect(new Set(types)).toEqual(new Set(['halfvec(768)']));
      const indexes = (await upgraded<{ result: string }>(`select result from run_command_on_shards('memories', $1) order by shardid`, [
        `select count(*) from pg_indexes where tablename = '%s' and indexdef like '%%hnsw (embedding halfvec_cosine_ops)%%WHERE vector_indexed%%'`,
      ])).map((r) => r.result);
      expect(new Set(indexes)).toEqual(new Set(['1']));
      expect(await upgraded<{ n: number }>(`select count(*)::int as n from memories where tenant_id = $1 and embedding is not null`, [T])).toEqual([{ n: 3 }]);
    });

    it('has its foreign keys (cascading) and row-level security on the coordinator and on every shard', async () => {
      const fks = await upgraded<{ def: string }>(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'memory_associations'::regclass and contype = 'f' order by 1`);
      expect(fks.map((f) => f.def)).toEqual([
        'FOREIGN KEY (tenant_id, memory_id) REFERENCES memories(tenant_id, id) ON DELETE CASCADE',
        'FOREIGN KEY (tenant_id, target_id) REFERENCES memories(tenant_id, id) ON DELETE CASCADE',
      ]);
      const policies = await upgraded<{ name: string; qual: string }>(`select policyname as name, qual from pg_policies where tablename = 'memory_associations'`);
      expect(policies).toEqual([{ name: 'tenant_isolation', qual: '(tenant_id = engram_current_tenant())' }]);
      const shards = await perShard(`select (select count(*) from pg_constraint where conrelid = '%1$s'::regclass and contype = 'f' and confdeltype = 'c') || ' ' || (select relrowsecurity and relforcerowsecurity from pg_class where oid = '%1$s'::regclass) || ' ' || (select count(*) from pg_policy where polrelid = '%1$s'::regclass) || ' ' || has_table_privilege('engram_app', '%1$s', 'insert')`);
      expect(shards.length).toBeGreaterThan(1);
      expect(new Set(shards)).toEqual(new Set(['2 true 1 true']));
    });

    it('the fan-out finds the tenant, the job links its memories (a router query), and the replaced content trigger resets them on the shards', async () => {
      const upgradedJob = job();
      expect(await upgradedJob.tenantsToRun([T])).toEqual([T]);
      const { result: report, statements } = await recordStatementPlans(() => upgradedJob.run(T));
      expect(await notRouterQueries('association job after the upgrade', statements)).toEqual([]);
      const links = await upgraded<{ memory: string; relation: string; target: string }>(`select memory_id::text as memory, relation, target_id::text as target from memory_associations where tenant_id = $1 and relation <> 'similar_to'`, [T]);
      expect(report).toEqual({ linked: 3, links: expect.any(Number) });
      const [flight, hotel, packing] = ids as [string, string, string];
      const sorted = (rows: typeof links) => rows.map((r) => [r.memory, r.relation, r.target].join(' ')).sort();
      expect(sorted(links)).toEqual(
        sorted([
          { memory: flight, relation: 'follows', target: hotel },
          { memory: flight, relation: 'shares_entity', target: hotel },
          { memory: flight, relation: 'shares_entity', target: packing },
          { memory: hotel, relation: 'follows', target: packing },
          { memory: hotel, relation: 'precedes', target: flight },
          { memory: hotel, relation: 'shares_entity', target: flight },
          { memory: packing, relation: 'precedes', target: hotel },
          { memory: packing, relation: 'shares_entity', target: flight },
        ]),
      );
      expect(await upgradedJob.tenantsToRun([T])).toEqual([]);

      // The workers run the new trigger function: a content change on the shard unlinks the memory.
      const bodies = await upgraded<{ result: string }>(`select result from run_command_on_workers($$select prosrc ~ 'associated_at' from pg_proc where proname = 'engram_content_written'$$)`);
      expect(bodies.map((b) => b.result)).toEqual(nodes.filter((n) => !n.coordinator).map(() => 't'));
      await new TenantDb(upgradeApp).run(T, ({ trx }) => sql`update memories set content = 'The hotel in Zanzibar closed its pool' where tenant_id = ${T} and id = ${hotel}`.execute(trx));
      const unlinked = await upgraded<{ id: string }>(`select id::text as id from memories where tenant_id = $1 and associated_at is null`, [T]);
      expect(unlinked).toEqual([{ id: hotel }]);
      expect(await upgradedJob.tenantsToRun([T])).toEqual([T]);
      expect(await upgradedJob.run(T)).toMatchObject({ linked: 1 });

      // And deleting a memory deletes its links on the shard.
      await new TenantDb(upgradeApp).run(T, ({ trx }) => sql`delete from memories where tenant_id = ${T} and id = ${hotel}`.execute(trx));
      expect(await upgraded<{ n: number }>(`select count(*)::int as n from memory_associations where tenant_id = $1 and $2 in (memory_id, target_id)`, [T, hotel])).toEqual([{ n: 0 }]);
    });
  });
});

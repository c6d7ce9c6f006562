import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { TenantDb, type DB } from '@engram/db';
import { fixtureWriter, seedMemories } from './support/memory-fixtures';
import { createTestDatabase, type TestDatabase } from './support/test-db';

// Row-level security is the second wall between tenants (the first: every repository scopes by
// tenant). These queries deliberately forget the tenant filter; RLS must still hold.
describe('row-level security (as engram_app)', () => {
  let testDb: TestDatabase;
  let db: Kysely<DB>;
  let tenants: TenantDb;
  const A = uuidv7();
  const B = uuidv7();
  const mindA = uuidv7();
  const mindB = uuidv7();

  const memory = (tenant: string, mind: string, key: string) => ({
    tenant_id: tenant,
    id: uuidv7(),
    mind_id: mind,
    category: 'fact' as const,
    key,
    content: `content of ${key}`,
    source: 'user' as const,
    verified: true,
    confidence: 1,
    content_hash: key,
  });

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: testDb.appUrl, max: 4 }) }) });
    tenants = new TenantDb(db);
    for (const [tenant, mind] of [
      [A, mindA],
      [B, mindB],
    ] as const) {
      await tenants.run(tenant, async ({ trx }) => {
        await trx.insertInto('tenants').values({ id: tenant, name: `t-${tenant}` }).execute();
        await trx.insertInto('minds').values({ tenant_id: tenant, id: mind, name: 'mind', description: null }).execute();
      });
      await seedMemories(fixtureWriter(db), { tenantId: tenant, mindId: mind }, [
        { key: 'one', category: 'fact', content: 'content of one' },
        { key: 'two', category: 'fact', content: 'content of two' },
      ]);
    }
  });

  afterAll(async () => {
    await db.destroy();
    await testDb.drop();
  });

  it('connects as a role that neither owns the tables nor bypasses RLS, and every tenant table forces RLS', async () => {
    const { rows } = await sql<{ role: string; superuser: boolean; bypass: boolean }>`
      select current_user as role, rolsuper as superuser, rolbypassrls as bypass from pg_roles where rolname = current_user`.execute(db);
    expect(rows[0]).toEqual({ role: 'engram_app', superuser: false, bypass: false });
    const tables = await sql<{ relname: string; owner: string; rls: boolean; forced: boolean }>`
      select c.relname, pg_get_userbyid(c.relowner) as owner, c.relrowsecurity as rls, c.relforcerowsecurity as forced
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and c.relname not like 'kysely%'
      order by c.relname`.execute(db);
    expect(tables.rows.map((t) => t.relname)).toEqual(
      expect.arrayContaining(['memories', 'memory_versions', 'messages', 'mind_keys', 'minds', 'stm_entries', 'tenants', 'users']),
    );
    for (const table of tables.rows) {
      expect({ table: table.relname, rls: table.rls, forced: table.forced }).toEqual({ table: table.relname, rls: true, forced: true });
      expect(table.owner).not.toBe('engram_app');
    }
  });

  it('under tenant A, an unfiltered select sees only A', async () => {
    const rows = await tenants.run(A, ({ trx }) => trx.selectFrom('memories').select(['tenant_id', 'key']).execute());
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.tenant_id))).toEqual(new Set([A]));
    const allTenants = await tenants.run(A, ({ trx }) => trx.selectFrom('tenants').select('id').execute());
    expect(allTenants).toEqual([{ id: A }]);
  });

  it('under tenant A, an unfiltered update and delete touch only A', async () => {
    const updated = await tenants.run(A, ({ trx }) =>
      trx.updateTable('memories').set({ content: 'overwritten by A' }).executeTakeFirst(),
    );
    expect(Number(updated.numUpdatedRows)).toBe(2);
    const deleted = await tenants.run(A, ({ trx }) => trx.deleteFrom('memories').where('key', '=', 'two').executeTakeFirst());
    expect(Number(deleted.numDeletedRows)).toBe(1);

    const bRows = await tenants.run(B, ({ trx }) => trx.selectFrom('memories').select(['key', 'content']).orderBy('key').execute());
    expect(bRows).toEqual([
      { key: 'one', content: 'content of one' },
      { key: 'two', content: 'content of two' },
    ]);
  });

  it('under tenant A, writing a row of B fails and stores nothing', async () => {
    await expect(
      tenants.run(A, ({ trx }) => trx.insertInto('memories').values(memory(B, mindB, 'smuggled')).execute()),
    ).rejects.toThrow(/row-level security/);
    await expect(
      tenants.run(A, ({ trx }) => trx.updateTable('memories').set({ tenant_id: B }).execute()),
    ).rejects.toThrow(/row-level security/);
    const bKeys = await tenants.run(B, ({ trx }) => trx.selectFrom('memories').select('key').orderBy('key').execute());
    expect(bKeys.map((r) => r.key)).toEqual(['one', 'two']);
  });

  it('with no tenant set, nothing is visible and nothing can be written', async () => {
    const rows = await db.selectFrom('memories').select('id').execute();
    expect(rows).toEqual([]);
    await expect(db.insertInto('tenants').values({ id: uuidv7(), name: 'rogue' }).execute()).rejects.toThrow(
      /row-level security/,
    );
  });

  it('the tenant setting is transaction-local: it does not leak to the next use of the connection', async () => {
    const single = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: testDb.appUrl, max: 1 }) }) });
    try {
      await new TenantDb(single).run(A, ({ trx }) => trx.selectFrom('memories').select('id').execute());
      expect(await single.selectFrom('memories').select('id').execute()).toEqual([]);
    } finally {
      await single.destroy();
    }
  });
});

import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import { Logger } from '@nestjs/common';
import { CompactContentPlugin } from './compact-content';
import { DataDirLockedError, lockDataDir } from './data-dir-lock';
import { CompiledQuery, Kysely, PostgresDialect, sql, type DatabaseConnection, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { Pool } from 'pg';
import { PREPARED_OPTIONS, PreparingClient } from './prepared';
import type { AppConfig } from '@engram/config';
import { migrateToLatest } from './migrator';
import type { DB } from './schema';

/** The role every application query runs as: owns nothing, cannot bypass RLS. */
export const APP_ROLE = 'engram_app';

export type DatabaseMode = 'postgres' | 'embedded';

/** An open database: the app's Kysely (as {@link APP_ROLE}) and how to close it. */
export interface DatabaseHandle {
  readonly db: Kysely<DB>;
  readonly mode: DatabaseMode;
  /** Migrations applied while opening (embedded mode migrates at start). */
  readonly applied: string[];
  /**
   * Embedded mode: what PostgreSQL's autovacuum would do now ({@link autovacuumSql}), as the
   * owner, on the one connection between units of work. @returns what ran, e.g. `vacuum analyze memories`.
   * Absent with `DATABASE_URL`: the server's autovacuum does it.
   */
  readonly maintain?: () => Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The tables PostgreSQL's autovacuum would vacuum or analyze now, with its default thresholds
 * (PostgreSQL docs, "The Autovacuum Daemon": vacuum when dead rows exceed 50 + 0.2 × the table's
 * rows, analyze when rows changed since the last analyze exceed 50 + 0.1 × them; a table never
 * analyzed counts 0 rows). PGlite runs PostgreSQL as one session with no background workers:
 * nothing ever analyzes or vacuums an embedded database unless it is asked, so the planner would
 * plan every search with no statistics and updated rows would never be reclaimed.
 */
export const autovacuumSql = `
  select s.relname::text as relname,
         s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) as vacuum,
         s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = 'public'
    and (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) or s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0))
  order by s.relname`;

/** A table name from the catalog, as a VACUUM target: a plain identifier only. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

/** Runs the autovacuum rule's commands on a connection that is its database's owner. */
async function autovacuum(conn: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql.raw<{ relname: string; vacuum: boolean; analyze: boolean }>(autovacuumSql).execute(conn);
  const done: string[] = [];
  for (const r of rows) {
    if (!PLAIN_NAME.test(r.relname)) continue;
    const command = r.vacuum ? `vacuum (analyze) ${r.relname}` : `analyze ${r.relname}`;
    await sql.raw(command).execute(conn);
    done.push(command);
  }
  return done;
}

/** Thrown when the database is reachable but not usable by the app; says what to do. */
export class DatabaseSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseSetupError';
  }
}

// Every pooled connection runs as the app role. With DATABASE_URL naming engram_app itself this
// is a no-op; with a login role that is a member of engram_app it drops that role's rights.
async function becomeAppRole(connection: DatabaseConnection): Promise<void> {
  await connection.executeQuery(CompiledQuery.raw(`set role ${APP_ROLE}`));
}

/**
 * A pool of PGlite connections whose every statement first lets the event loop turn
 * (`setImmediate`). PGlite runs each statement in the API's own thread and answers without I/O,
 * so the statements of a background job, chained by promises, ran back to back and no request
 * was even read meanwhile (a newcomer: `/health/live` answered after 106 s while the association
 * job linked 3,000 memories). Yielding bounds a request's wait by the longest single statement.
 */
function yieldingPool(pool: Pool): PostgresPool {
  const wrapped = new WeakMap<object, PostgresPoolClient>();
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    connect: async () => {
      const client = await pool.connect();
      let facade = wrapped.get(client);
      if (!facade) {
        facade = {
          query: (async (text: string, parameters: ReadonlyArray<unknown>) => {
            await turn();
            return client.query(text, parameters as unknown[]);
          }) as unknown as PostgresPoolClient['query'],
          release: (destroy?: boolean) => client.release(destroy),
        };
        wrapped.set(client, facade);
      }
      return facade;
    },
    end: () => pool.end(),
  };
}

/**
 * Opens Postgres at `DATABASE_URL`, or embedded PGlite (with pgvector) under
 * `ENGRAM_DATA_DIR/pg` when it is unset; embedded mode applies pending migrations first,
 * as the owner, before switching to the app role.
 *
 * @throws DatabaseSetupError when the schema is missing or the app role could bypass RLS.
 */
export async function openDatabase(config: AppConfig): Promise<DatabaseHandle> {
  if (config.DATABASE_URL) {
    // JIT off: the service runs short statements, and search's (enable_seqscan off inflates their
    // estimates past jit_above_cost) spent 0.7 s compiling for 15 ms of work (bench/RESULTS.md, scale).
    // Prepared statements: the hot paths' planning cost as much as their work (prepared.ts).
    const pool = new Pool({
      connectionString: config.DATABASE_URL,
      max: config.DATABASE_POOL_MAX,
      options: `-c jit=off${config.DATABASE_PREPARED_STATEMENTS ? ` ${PREPARED_OPTIONS}` : ''}`,
      ...(config.DATABASE_PREPARED_STATEMENTS ? { Client: PreparingClient } : {}),
    });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it and requests meanwhile answer 503.
    pool.on('error', (error) => new Logger('Database').warn(`a pooled connection was lost: ${error.message}`));
    // A connection lost while a unit of work holds it (pg-pool listens only to idle ones): the
    // error goes to its next statement, which fails that work (503), and the pool drops it on
    // release. Without a listener, pg emits it as an unhandled 'error' and the process died (CI's
    // faults test caught the worker so when PostgreSQL restarted mid-transaction).
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool, onCreateConnection: becomeAppRole }), plugins: [new CompactContentPlugin()] });
    const handle: DatabaseHandle = { db, mode: 'postgres', applied: [], close: () => db.destroy() };
    await verifyDatabase(handle);
    return handle;
  }

  const dataDir = resolve(config.ENGRAM_DATA_DIR, 'pg');
  await mkdir(dataDir, { recursive: true });
  // PGlite is one process's database: a second process on the same files corrupts the first's
  // view of them (its writes fail until restart). A lock with a heartbeat keeps it to one.
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(dataDir, (error) => new Logger('Database').error(`embedded database lock lost: ${error.message}`));
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      throw new DatabaseSetupError(
        `the embedded database at ${dataDir} is in use by another Engram process; stop it first, or give this one its own ENGRAM_DATA_DIR`,
      );
    }
    throw error;
  }
  let lite: PGlite;
  try {
    lite = await PGlite.create(dataDir, { extensions: { vector } });
  } catch (error) {
    await release();
    throw error;
  }
  // PGlite is one session: a pool of one serialises transactions, which keeps them whole.
  const owner = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new Pool(createPgConfig(lite)) }) });
  let applied: string[];
  try {
    applied = await migrateToLatest(owner);
  } finally {
    await owner.destroy();
  }
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: yieldingPool(new Pool(createPgConfig(lite))), onCreateConnection: becomeAppRole }),
    plugins: [new CompactContentPlugin()],
  });
  const handle: DatabaseHandle = {
    db,
    mode: 'embedded',
    applied,
    // The pool's one connection, between units of work, back to the owner (PGlite's session user)
    // for the commands only an owner may run, and to the app role after them whatever happens.
    maintain: () =>
      db.connection().execute(async (conn) => {
        await sql.raw('reset role').execute(conn);
        try {
          return await autovacuum(conn);
        } finally {
          await sql.raw(`set role ${APP_ROLE}`).execute(conn);
        }
      }),
    close: async () => {
      await db.destroy();
      await lite.close();
      await release();
    },
  };
  await verifyDatabase(handle);
  return handle;
}

async function verifyDatabase(handle: DatabaseHandle): Promise<void> {
  let row: { role: string; superuser: boolean; bypass: boolean; schema: string | null } | undefined;
  try {
    const result = await sql<{ role: string; superuser: boolean; bypass: boolean; schema: string | null }>`
      select current_user as role, r.rolsuper as superuser, r.rolbypassrls as bypass,
             to_regclass('public.memories')::text as schema
      from pg_roles r where r.rolname = current_user`.execute(handle.db);
    row = result.rows[0];
  } catch (error) {
    await handle.close();
    const message = error instanceof Error ? error.message : String(error);
    throw new DatabaseSetupError(
      /role .* does not exist|permission denied to set role/.test(message)
        ? `cannot run as ${APP_ROLE} (${message}): run "npm run db:migrate" first, and connect as ${APP_ROLE} or a role that is a member of it`
        : `cannot use the database: ${message}`,
    );
  }
  if (!row || row.superuser || row.bypass) {
    await handle.close();
    throw new DatabaseSetupError(`the app role ${row?.role ?? '?'} can bypass row-level security; refusing to start`);
  }
  if (!row.schema) {
    await handle.close();
    throw new DatabaseSetupError('the Engram schema is missing: run "npm run db:migrate" against this database');
  }
}

/** Opens a Kysely as the migration owner (`MIGRATION_DATABASE_URL`, else `DATABASE_URL`). */
export function openOwnerDatabase(url: string): Kysely<unknown> {
  return new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: url, max: 1 }) }) });
}

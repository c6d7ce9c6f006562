import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from './database';
import { openOwnerDatabase } from './database';

/** The ivfflat index over `memories.embedding` (created by the init migration). */
export const VECTOR_INDEX = 'memories_embedding_idx';
const NEXT = `${VECTOR_INDEX}_next`;
/** Serialises rebuilds across processes (any constant unique to this job). */
const LOCK_KEY = 0x656e6772; // "engr"

/** The vector index as the catalog describes it. */
export interface VectorIndexState {
  /** Memories in the table (pg_class.reltuples: the planner's estimate, kept by ANALYZE). */
  rows: number;
  /** The index's `lists` (pgvector's default, 100, when the index does not say). */
  lists: number;
  /** Rows when the index was last rebuilt by this job; null when it never was. */
  builtForRows: number | null;
  builtAt: string | null;
}

// Readable by any role: pg_class is public, and reltuples is a count, not tenant data.
export async function readVectorIndexState(db: Kysely<any>): Promise<VectorIndexState> {
  const { rows } = await sql<{ rows: number; options: string[] | null; comment: string | null }>`
    select greatest(t.reltuples, 0)::float8 as rows, i.reloptions as options, obj_description(i.oid, 'pg_class') as comment
    from pg_class t join pg_index x on x.indrelid = t.oid join pg_class i on i.oid = x.indexrelid
    where t.oid = 'public.memories'::regclass and i.relname = ${VECTOR_INDEX}`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`index ${VECTOR_INDEX} is missing: run "npm run db:migrate"`);
  const lists = Number((row.options ?? []).find((o) => o.startsWith('lists='))?.slice(6) ?? 100);
  let built: { rows?: unknown; built_at?: unknown } = {};
  try {
    built = row.comment ? (JSON.parse(row.comment) as typeof built) : {};
  } catch {
    // A comment someone else wrote: the build is unknown.
  }
  return {
    rows: Math.round(row.rows),
    lists,
    builtForRows: typeof built.rows === 'number' ? built.rows : null,
    builtAt: typeof built.built_at === 'string' ? built.built_at : null,
  };
}

/** How the index is rebuilt: the owner's connection, and whether writes may go on meanwhile. */
export type VectorIndexOwner =
  /** Embedded PGlite: one session; the build runs in one transaction as the session user. */
  | { kind: 'embedded'; handle: DatabaseHandle }
  /** PostgreSQL as the table owner: `create index concurrently`, then a swap in one transaction. */
  | { kind: 'postgres'; url: string };

/**
 * Refreshes the planner's row count (ANALYZE needs the owner) and reads the index state.
 * @throws the database's error when the role may not analyze `memories`
 */
export async function analyzeVectorIndex(owner: VectorIndexOwner): Promise<VectorIndexState> {
  return withOwner(owner, async (db) => {
    await sql`analyze memories`.execute(db);
    return readVectorIndexState(db);
  });
}

/**
 * Rebuilds the ivfflat index with `lists` lists (pgvector: rebuild after the table has grown,
 * since centroids are chosen at build time) and records `{rows, built_at}` in its comment.
 * In PostgreSQL searches and writes go on meanwhile (the old index serves until the swap); in
 * embedded mode, one session, they wait for the build.
 *
 * @returns false when another process holds the rebuild lock (nothing done)
 * @throws the database's error when the role does not own `memories`
 */
export async function rebuildVectorIndex(owner: VectorIndexOwner, lists: number, rows: number, at: Date): Promise<boolean> {
  if (!Number.isInteger(lists) || lists < 1 || lists > 32768) throw new RangeError(`lists must be a whole number from 1 to 32768 (pgvector), got ${lists}`);
  const comment = JSON.stringify({ rows, lists, built_at: at.toISOString() });
  const create = (name: string, concurrently: boolean) =>
    sql`create index ${sql.raw(concurrently ? 'concurrently ' : '')}${sql.id(name)} on memories using ivfflat (embedding halfvec_cosine_ops) with (lists = ${sql.raw(String(lists))})`;
  if (owner.kind === 'embedded') {
    await owner.handle.db.transaction().execute(async (trx) => {
      // The app runs as engram_app; the session user (PGlite's superuser) owns the tables.
      await sql`select set_config('role', session_user, true)`.execute(trx);
      await sql`drop index if exists ${sql.id(VECTOR_INDEX)}`.execute(trx);
      await create(VECTOR_INDEX, false).execute(trx);
      await sql`comment on index ${sql.id(VECTOR_INDEX)} is ${sql.lit(comment)}`.execute(trx);
    });
    return true;
  }
  const db = openOwnerDatabase(owner.url);
  try {
    // One connection (the pool's max is 1): the session lock and the concurrent build share it.
    const { rows: locked } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${LOCK_KEY}) as ok`.execute(db);
    if (!locked[0]?.ok) return false;
    try {
      // A build that died half-way leaves an invalid index behind.
      await sql`drop index concurrently if exists ${sql.id(NEXT)}`.execute(db);
      await create(NEXT, true).execute(db);
      await db.transaction().execute(async (trx) => {
        await sql`drop index ${sql.id(VECTOR_INDEX)}`.execute(trx);
        await sql`alter index ${sql.id(NEXT)} rename to ${sql.id(VECTOR_INDEX)}`.execute(trx);
        await sql`comment on index ${sql.id(VECTOR_INDEX)} is ${sql.lit(comment)}`.execute(trx);
      });
      return true;
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_KEY})`.execute(db);
    }
  } finally {
    await db.destroy();
  }
}

async function withOwner<T>(owner: VectorIndexOwner, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  if (owner.kind === 'embedded') {
    return owner.handle.db.transaction().execute(async (trx) => {
      await sql`select set_config('role', session_user, true)`.execute(trx);
      return fn(trx);
    });
  }
  const db = openOwnerDatabase(owner.url);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { distributeOnCitus, isCitus } from './citus';
import { migrationsDir } from './project-paths';

/**
 * Reads `<yyyymmddHHMMss>_<name>.sql` files; each runs inside the migrator's transaction, one
 * statement at a time ({@link splitSqlStatements}), in file order. Forward-only: migrations are
 * frozen, never edited or undone.
 *
 * One statement a message, not the file as one multi-statement message, for Citus: on a
 * coordinator whose tables are already distributed (an upgrade), Citus 13.2 sends a CREATE INDEX
 * or DROP INDEX on a distributed table to the workers' metadata as the text of the whole message
 * that carried it (commands/index.c `metadataSyncCommand`), so a file of several statements
 * fails there ("cannot insert multiple commands into a prepared statement"). And on Citus the
 * transaction runs its multi-shard commands over one connection per node
 * (`citus.multi_shard_modify_mode = 'sequential'`, set before a migration's first statement):
 * function DDL (a replaced trigger function, a new security-definer look-up) is refused after a
 * parallel multi-shard command in the same transaction, and the migrator runs every pending
 * migration in one transaction. The price is an upgrade's index builds running one shard at a
 * time per node. Elsewhere that setting is an unused placeholder and is not set.
 */
export class SqlFileMigrationProvider implements MigrationProvider {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(this.dir)).filter((f) => /^\d{14}_[a-z0-9_]+\.sql$/.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const path = join(this.dir, file);
      migrations[file.replace(/\.sql$/, '')] = {
        up: async (db: Kysely<unknown>) => {
          const statements = splitSqlStatements(await readFile(path, 'utf8'));
          if (await isCitus(db)) await sql`set local citus.multi_shard_modify_mode = 'sequential'`.execute(db);
          for (const statement of statements) await sql.raw(statement).execute(db);
        },
      };
    }
    return migrations;
  }
}

/**
 * The statements of an SQL script, in order, each without its terminating semicolon: split at
 * the semicolons outside quoted text ('strings', E'strings' with backslash escapes, "names",
 * $tag$ bodies $tag$) and comments (`--` to the end of the line, nested `/* *\/`). Parts that
 * hold only whitespace and comments are left out; comments inside a statement stay in it.
 * Not handled (none of the migrations has them): SQL-standard function bodies (BEGIN ATOMIC),
 * whose inner semicolons are outside any quote.
 */
export function splitSqlStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let code = false; // whether the current part has anything but whitespace and comments
  let i = 0;
  const n = script.length;
  const push = (end: number) => {
    if (code) statements.push(script.slice(start, end).trim());
    start = end + 1;
    code = false;
  };
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const eol = script.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (script[i] === '/' && script[i + 1] === '*') (depth++, (i += 2));
        else if (script[i] === '*' && script[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
    } else if (c === "'" || c === '"') {
      // E'...' (backslash escapes) when the quote follows a lone E; a doubled quote is a quote.
      const escapes = c === "'" && /[eE]/.test(script[i - 1] ?? '') && !/[\w$]/.test(script[i - 2] ?? '');
      code = true;
      i++;
      while (i < n) {
        if (escapes && script[i] === '\\') i += 2;
        else if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '$' && !/[\w$]/.test(script[i - 1] ?? '')) {
      // A dollar quote's tag is empty or an identifier not starting with a digit ($1 is a parameter).
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(script.slice(i, i + 64))?.[0];
      code = true;
      if (tag) {
        const close = script.indexOf(tag, i + tag.length);
        i = close < 0 ? n : close + tag.length;
      } else i++;
    } else if (c === ';') {
      push(i);
      i++;
    } else {
      if (!/\s/.test(c)) code = true;
      i++;
    }
  }
  push(n);
  return statements;
}

/** Thrown when a migration fails; names it and carries the database's message. */
export class MigrationError extends Error {
  constructor(readonly migration: string | undefined, cause: unknown) {
    super(`migration ${migration ?? '(unknown)'} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MigrationError';
  }
}

/**
 * Applies every pending migration, in name order, as whoever `db` connects as (the owner).
 * Safe to run concurrently: Kysely's migrator serialises on a lock row. On a Citus coordinator
 * it then distributes the tables by tenant ({@link distributeOnCitus}; nothing elsewhere).
 *
 * @returns the names of the migrations applied by this call (empty when up to date).
 * @throws MigrationError naming the migration that failed; earlier ones stay applied.
 */
export async function migrateToLatest(db: Kysely<unknown>, dir = migrationsDir()): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider(dir) });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new MigrationError(failed?.migrationName, error);
  }
  try {
    await distributeOnCitus(db);
  } catch (cause) {
    throw new MigrationError('citus distribution (libs/db/src/citus.ts)', cause);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { distributeOnCitus } from './citus';
import { migrationsDir } from './project-paths';

/**
 * Reads `<yyyymmddHHMMss>_<name>.sql` files; each runs whole, as raw SQL, inside the
 * migrator's transaction. Forward-only: migrations are frozen, never edited or undone.
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
          await sql.raw(await readFile(path, 'utf8')).execute(db);
        },
      };
    }
    return migrations;
  }
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

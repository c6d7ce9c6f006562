import { loadConfig } from '@engram/config';
import { migrateToLatest, openDatabase, openOwnerDatabase } from '@engram/db';

/**
 * `npm run db:migrate`: applies pending SQL migrations as the owner of the tables
 * (`MIGRATION_DATABASE_URL`, else `DATABASE_URL`); with neither, migrates the embedded PGlite
 * database under `ENGRAM_DATA_DIR`. Exits 1 naming the failed migration.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const url = config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL;
  let applied: string[];
  if (url) {
    const db = openOwnerDatabase(url);
    try {
      applied = await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
  } else {
    const handle = await openDatabase(config);
    applied = handle.applied;
    await handle.close();
  }
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

import { parseArgs } from 'node:util';
import { loadConfig, systemClock } from '@engram/config';
import { openDatabase, openOwnerDatabase, type DatabaseHandle, type DB } from '@engram/db';
import type { Kysely } from 'kysely';
import { VectorIndexUpkeep } from '@engram/jobs';

/**
 * `npm run db:reindex [-- --force] [--lists N]`: checks the ivfflat index over memory embeddings
 * against the table's size and rebuilds it when due (rows/1000 lists up to a million rows,
 * sqrt(rows) beyond; see VectorIndexUpkeep); `--lists N` rebuilds with N lists. Run it as the
 * owner of the tables (`MIGRATION_DATABASE_URL`, else `DATABASE_URL`), e.g. from a Kubernetes
 * CronJob; with neither, it works on the embedded database under `ENGRAM_DATA_DIR` (refused while
 * a service holds it). Prints the state as JSON; exits 1 on failure, 2 when it may not rebuild.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { force: { type: 'boolean', default: false }, lists: { type: 'string' } } });
  const lists = values.lists === undefined ? undefined : Number(values.lists);
  if (lists !== undefined && !(Number.isInteger(lists) && lists >= 1 && lists <= 32768)) throw new Error('--lists: must be a whole number from 1 to 32768');
  const config = loadConfig();
  // In PostgreSQL the owner's connection is all it needs (a CronJob may have only that URL).
  const ownerUrl = config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL;
  const handle: DatabaseHandle = ownerUrl ? ownerHandle(ownerUrl) : await openDatabase(config);
  try {
    const report = await new VectorIndexUpkeep(handle, config, systemClock).runOnce({ force: values.force, lists });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (report.action === 'no-owner') process.exitCode = 2;
  } finally {
    await handle.close();
  }
}

function ownerHandle(url: string): DatabaseHandle {
  const db = openOwnerDatabase(url) as unknown as Kysely<DB>;
  return { db, mode: 'postgres', applied: [], close: () => db.destroy() };
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

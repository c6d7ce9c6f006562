import { parseArgs } from 'node:util';
import { loadConfig, systemClock } from '@engram/config';
import { openDatabase } from '@engram/db';
import { VectorIndexUpkeep } from '@engram/consolidation';

/**
 * `npm run db:reindex [-- --force] [--lists N]`: checks the ivfflat index over memory embeddings
 * against the table's size and rebuilds it when due (rows/1000 lists up to a million rows,
 * sqrt(rows) beyond; see VectorIndexUpkeep). Run it as the owner of the tables
 * (`MIGRATION_DATABASE_URL`, else `DATABASE_URL`), e.g. from a Kubernetes CronJob; with neither,
 * it works on the embedded database under `ENGRAM_DATA_DIR` (stop the service first: PGlite is
 * one process's). Prints the state as JSON; exits 1 on failure, 2 when it may not rebuild.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { force: { type: 'boolean', default: false }, lists: { type: 'string' } } });
  const lists = values.lists === undefined ? undefined : Number(values.lists);
  if (lists !== undefined && !(Number.isInteger(lists) && lists >= 1 && lists <= 32768)) throw new Error('--lists: must be a whole number from 1 to 32768');
  const config = loadConfig();
  const handle = await openDatabase(config);
  try {
    const report = await new VectorIndexUpkeep(handle, config, systemClock).runOnce({ force: values.force, lists });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (report.action === 'no-owner') process.exitCode = 2;
  } finally {
    await handle.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

import { ConfigError, loadConfig } from '@engram/config';
import { createWorker, WorkerConfigError } from './create-worker';

// Like the API's main.ts: every start-up failure, a bad configuration (ConfigError, thrown by
// loadConfig), a missing DATABASE_URL/REDIS_URL (WorkerConfigError) or anything else, prints its
// message on stderr and exits 1, without a stack trace.
async function main(): Promise<void> {
  const config = loadConfig(process.env, { issuesTokens: false });
  await createWorker(config);
  process.stdout.write('Engram worker ready (Postgres and Redis connected)\n');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError || error instanceof WorkerConfigError || error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});

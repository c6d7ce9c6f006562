import { loadConfig } from '@engram/config';
import { createWorker } from './create-worker';

createWorker(loadConfig())
  .then(() => process.stdout.write('Engram worker ready (Postgres and Redis connected)\n'))
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });

import { ConfigError, loadConfig } from '@engram/config';
import { createApp } from './create-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.PORT, config.HOST);
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}`;
  process.stdout.write(
    `Engram API listening on ${url} (${config.DATABASE_URL ? 'PostgreSQL' : `embedded, data in ${config.ENGRAM_DATA_DIR}`}); docs at ${url}/docs\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

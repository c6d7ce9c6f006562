/**
 * Regenerates the TypeScript client's OpenAPI document and types (clients/typescript/openapi.json
 * and src/schema.d.ts) from the API itself:
 *
 *   npm run client:generate
 *
 * Builds the API with swc first (Nest needs the decorator metadata that tsx does not emit), then
 * creates it in embedded mode on a scratch data directory, without listening, and writes the
 * document exactly as `/docs-json` serves it (keys sorted). test/client.test.ts fails when the
 * committed files and the API drift apart.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { OPENAPI_FILE, SCHEMA_FILE, openApiJson, schemaTypes } from './client-codegen';

const DIST = join(__dirname, '..', 'dist');

async function main(): Promise<void> {
  const { loadConfig, NO_SCHEDULES } = (await import(`${DIST}/libs/config/src/index.js`)) as typeof import('@engram/config');
  const { createApp, buildOpenApiDocument } = (await import(`${DIST}/apps/api/src/create-app.js`)) as typeof import('../apps/api/src/create-app');
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-openapi-'));
  try {
    // Only the variables the document could depend on; nothing of the caller's environment.
    const config = loadConfig({
      NODE_ENV: 'development',
      ENGRAM_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      OPENAPI_ENABLED: 'true',
      ...NO_SCHEDULES,
    });
    const app = await createApp(config);
    try {
      const json = openApiJson(buildOpenApiDocument(app));
      await writeFile(OPENAPI_FILE, json);
      await writeFile(SCHEMA_FILE, await schemaTypes(json));
    } finally {
      await app.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  const root = join(__dirname, '..');
  process.stdout.write(`client:generate: wrote ${relative(root, OPENAPI_FILE)} and ${relative(root, SCHEMA_FILE)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`client:generate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

/**
 * Soak (issue 8 §7): minutes of mixed traffic over HTTP (keyed upserts, conversation writes, GET
 * by id, search, recall, paginated lists, deletes) across tenants and minds, with the API's
 * memory and CPU sampled from its `/metrics`. Passes with zero errors (an answer outside the
 * statuses a request may have, or none) and a flat RSS: its least-squares slope over the second
 * half at most `--max-rss-slope` MiB per minute (the first half holds the warm-up: JIT, pools,
 * caches).
 *
 *   npm run bench:soak -- [--minutes 10] [--json out.json] [--concurrency 8] [--tenants 3] [--minds 2]
 *     [--max-rss-slope 2] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *   npm run bench:soak -- --url http://host:3000 [--token <owner JWT>] [--metrics-token T] ...
 *
 * Without `--url` it starts the built API (`dist`, which the npm script builds first: Nest needs
 * swc's decorator metadata) as a child process on a scratch database `engram_bench_soak`
 * (dropped and re-created on that server, a superuser's URL; migrated; the API connects as
 * engram_app), with rate limits off, no Redis (background work runs in the API's process, as in
 * a single-process deployment) and the local embedder. With `--url` it soaks that API: rate
 * limits must allow the load, and `--token` (an owner's JWT) makes its minds in that tenant
 * instead of registering `--tenants` tenants. Exit code 1 on errors or growth, 2 on bad usage.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { freePort, spawnService, type ChildService } from '../test/support/child-service';
import { createMigratedDatabase } from '../test/support/test-db';
import { formatSoak, runSoak } from './soak-run';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seconds: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    'metrics-token': { type: 'string' },
    tenants: { type: 'string', default: '3' },
    minds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '8' },
    'sample-every': { type: 'string', default: '5' },
    'max-rss-slope': { type: 'string', default: '2' },
    json: { type: 'string' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const DB = 'engram_bench_soak';
const DIST = resolve(__dirname, '../dist');

function number(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`bench:soak: --${name} must be a positive number\n`);
    process.exit(2);
  }
  return n;
}

async function dropScratch(server: string): Promise<void> {
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${DB} with (force)`);
  } finally {
    await admin.end();
  }
}

/** The built API on a fresh scratch database. @returns its URL and the process */
async function startApi(server: string): Promise<{ url: string; api: ChildService }> {
  await dropScratch(server);
  const appUrl = new URL(await createMigratedDatabase(server, DB));
  appUrl.username = 'engram_app';
  appUrl.password = '';
  const port = await freePort();
  const api = spawnService(DIST, 'apps/api/src/main.js', {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: appUrl.toString(),
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_IP_PER_MINUTE: '0',
  });
  const url = `http://127.0.0.1:${port}`;
  await api.answering(`${url}/health/ready`);
  return { url, api };
}

async function main(): Promise<void> {
  const durationMs = args.seconds ? number('seconds', args.seconds) * 1000 : number('minutes', args.minutes) * 60_000;
  const maxSlope = number('max-rss-slope', args['max-rss-slope']);
  const own = args.url ? undefined : await startApi(args['database-url']);
  const url = args.url ?? (own?.url as string);
  process.stdout.write(`bench:soak: ${durationMs / 1000} s against ${url}${own ? ` (pid ${own.api.child.pid}, database ${DB})` : ''}\n`);
  try {
    const result = await runSoak({
      url,
      durationMs,
      tenants: number('tenants', args.tenants),
      mindsPerTenant: number('minds', args.minds),
      concurrency: number('concurrency', args.concurrency),
      sampleEveryMs: number('sample-every', args['sample-every']) * 1000,
      ownerToken: args.token,
      metricsToken: args['metrics-token'],
      onSample: (s) => process.stdout.write(`  ${s.t_s} s: RSS ${s.rss_mb} MiB, heap ${s.heap_used_mb}/${s.heap_total_mb} MiB, CPU ${s.cpu_pct}%\n`),
    });
    const grew = result.memory.rss_slope_mb_per_min > maxSlope;
    process.stdout.write(`\n${formatSoak(result)}\n\n`);
    process.stdout.write(
      `verdict: ${result.errors === 0 ? 'no errors' : `${result.errors} ERRORS`}; RSS ${grew ? 'GREW' : 'flat'} (slope ${result.memory.rss_slope_mb_per_min} MiB/min, limit ${maxSlope})\n`,
    );
    if (args.json) await writeFile(args.json, `${JSON.stringify({ ...result, max_rss_slope_mb_per_min: maxSlope, pass: result.errors === 0 && !grew }, null, 2)}\n`);
    process.exitCode = result.errors === 0 && !grew ? 0 : 1;
  } finally {
    if (own) {
      await own.api.stop();
      await dropScratch(args['database-url']);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:soak: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

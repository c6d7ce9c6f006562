/**
 * Performance at scale (issue 7): one mind of `--memories` memories, or `--tenants` tenants of
 * `--per-tenant` memories each, measured end to end over HTTP with autocannon against the API
 * running as a child process (`node dist/apps/api/src/main.js`, as production runs it).
 *
 *   npm run bench:scale -- --file ../shared/bench-data/locomo-dev.json --memories 1000000
 *   npm run bench:scale -- --file ../shared/bench-data/locomo-dev.json --tenants 1000 --per-tenant 1000
 *     [--seconds 15] [--connections 4] [--write-connections 16] [--queries 500] [--ann-queries 100]
 *     [--corpus distinct|repeated] [--corpus-seed 16001]
 *     [--sweeps] [--associations] [--reuse] [--citus] [--only search,vector,recall,write,ann|seed-only] [--profile DIR] [--json out.json]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--port 3950]
 *
 * Seeds a scratch database `engram_bench_scale_<shape>_distinct` (`engram_bench_scale_<shape>`
 * for `--corpus repeated`; dropped and re-created unless `--reuse` finds it seeded) with batched
 * set-based inserts as the owner: texts are bench/corpus.ts's `--corpus`, `distinct` by default
 * (no text repeated: recombined LoCoMo sentences with names, numbers, dates and words varied) or
 * `repeated` (one or two consecutive LoCoMo turns, each turn ~180 times in a million: issue 7's),
 * deterministic, embedded with the default local embedder, in sessions of 20 turns (temporal
 * context and position), with tags, categories, ages over two years and access counts, so that
 * search, filters, neighbours and the sweeps have real work. Tenants and their users are made
 * through the API (`POST /v1/auth/register`), memories straight into the tables; then the
 * memories of minds of 10 000 or more are put in the HNSW index (`vector_indexed`), the indexes
 * built and the tables analysed.
 *
 * Measures, each for `--seconds` with `--connections` concurrent clients (random tenant per
 * request in the many-tenant shape; writes with `--write-connections`): keyed writes, one a
 * request (`POST /v1/memory`, new keys) and 50 a request (`POST /v1/memory/batch`); hybrid search,
 * with and without filters; vector-only search (`mode=vector`); recall with a question and a
 * token budget; the API's CPU and memory (pidusage, sampled every 250 ms); ANN recall@10 of the
 * index against exact search (the statements search runs; queries: the distinct corpus's, half
 * LoCoMo questions and half held-out memory-like texts); and with `--sweeps`, the forgetting
 * and tiering sweeps' memories per second (they change the data: run them last, or on a copy).
 * Every search answer is checked to hold only the asking tenant's memories.
 *
 * With `--citus`, `--database-url` is a Citus coordinator's (scripts/citus-cluster.sh url): the
 * scratch database (`..._citus`) is made on the coordinator and every worker with the citus and
 * vector extensions, the workers are added to it, and the migrations distribute it by tenant.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 *
 * This file reads the options, runs the steps in order and prints the tables; the scratch
 * database and seeding are in scale-seed.ts, the API child and tenants in scale-api.ts, the load
 * phases in scale-phase.ts, the sweeps in scale-sweeps.ts and `--profile`'s summary in
 * scale-profile.ts.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase } from '@engram/db';
import { DEFAULT_LIFECYCLE } from '@engram/memory';
import { annRecall } from './ann-recall';
import { inParallel, log, startApi, tenant, type Tenant } from './scale-api';
import { ownItems, phase, type Load, type Phase } from './scale-phase';
import { topFunctions } from './scale-profile';
import { CATEGORIES, TAGS, memorySizes, scratchDatabase, seedMemories } from './scale-seed';
import { runAssociations, runSweeps } from './scale-sweeps';
import { CORPORA, DistinctCorpus, readCorpusSource, repeatedTexts, type CorpusKind } from './corpus';
import { failure, locomoCorpus, prng, scratchUrls } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    memories: { type: 'string' },
    tenants: { type: 'string' },
    'per-tenant': { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '15' },
    connections: { type: 'string', default: '4' },
    /** Clients of the write phases (writers commit in groups: more of them, more commits per WAL flush). */
    'write-connections': { type: 'string', default: '16' },
    queries: { type: 'string', default: '500' },
    /** Questions for ANN recall (each also runs an exact scan of the mind: ~5 s at a million). */
    'ann-queries': { type: 'string', default: '100' },
    /** The seeded texts: `distinct` (no text repeated) or `repeated` (issue 7's LoCoMo turns, ~180 times each at a million). */
    corpus: { type: 'string', default: 'distinct' },
    'corpus-seed': { type: 'string', default: '16001' },
    sweeps: { type: 'boolean', default: false },
    // Build the association graph over every tenant after the load phases, timed (issue 19).
    associations: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    /** `--database-url` is a Citus coordinator (scripts/citus-cluster.sh url): the scratch database is made on every node and distributed by tenant. */
    citus: { type: 'boolean', default: false },
    only: { type: 'string' },
    /** Write the API's V8 CPU profile (.cpuprofile: a flame chart in Chrome DevTools or speedscope) here, and print its top functions. */
    profile: { type: 'string' },
    json: { type: 'string' },
    port: { type: 'string', default: '3950' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const fail: (message: string) => never = failure('bench:scale');

async function main(): Promise<void> {
  if (!args.file) fail('--file <locomo json> is required');
  const many = args.tenants !== undefined;
  const tenantCount = many ? Number(args.tenants) : 1;
  const perTenant = many ? Number(args['per-tenant']) : Number(args.memories ?? '10000');
  if (!(tenantCount >= 1 && perTenant >= 1)) fail('--memories, --tenants and --per-tenant take positive numbers');
  const shape = many ? `t${tenantCount}x${perTenant}` : `m${perTenant}`;
  if (!CORPORA.includes(args.corpus as CorpusKind)) fail(`--corpus takes ${CORPORA.join(' or ')}`);
  const corpusKind = args.corpus as CorpusKind;
  const citus = args.citus === true;
  const dbName = `engram_bench_scale_${shape}${corpusKind === 'repeated' ? '' : `_${corpusKind}`}${citus ? '_citus' : ''}`;

  const random = prng(20261130);
  const { turns, queries } = await locomoCorpus(args.file, { count: Number(args.queries), random, speakers: true });
  const corpus = new DistinctCorpus(await readCorpusSource(args.file), { seed: Number(args['corpus-seed']), speakers: true });
  // The repeated corpus draws from the seeding's `random`, as issue 7's runs did.
  const nextText = corpusKind === 'repeated' ? repeatedTexts(turns, random) : () => corpus.next();
  const urls = scratchUrls(args['database-url'], dbName);

  const seeded = await scratchDatabase(args['database-url'], urls.owner, dbName, tenantCount * perTenant, args.reuse, citus);
  const owner = openOwnerDatabase(urls.owner);
  await migrateToLatest(owner);
  const db = new Client({ connectionString: urls.owner });
  await db.connect();
  if (citus) {
    // The migrator distributes the tables on a database with the citus extension (libs/db/src/citus.ts).
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from pg_dist_partition where logicalrelid = 'memories'::regclass and partmethod = 'h'`);
    if (rows[0]?.n !== 1) fail(`${dbName}: memories is not distributed by tenant after the migrations`);
    const { rows: shards } = await db.query<{ nodes: number; shards: number }>(`select count(distinct nodeport)::int as nodes, count(*)::int as shards from citus_shards where table_name = 'memories'::regclass`);
    log(`${dbName}: memories distributed by tenant in ${shards[0]?.shards} shards on ${shards[0]?.nodes} nodes`);
  }

  const port = Number(args.port);
  const base = `http://127.0.0.1:${port}`;
  let child = await startApi(urls.app, port, args.profile);
  const tenants = await inParallel(tenantCount, 8, (i) => tenant(base, i, seeded));
  log(`${tenants.length} tenants ready`);

  let seed: Record<string, number> = {};
  if (!seeded) {
    seed = await seedMemories(db, { ownerUrl: urls.owner, dbName, tenants, perTenant, nextText, random });
    if (corpusKind === 'distinct') {
      const stats = corpus.stats();
      seed.distinct_texts = stats.texts;
      seed.redraws = stats.redraws;
      log(`distinct corpus: ${stats.texts} texts, all distinct in their embedder tokens (${stats.redraws} repeats drawn again)`);
    }
    // A fresh process: nothing cached from the seeding (sizes, statistics).
    child.kill('SIGTERM');
    await once(child, 'exit');
    child = await startApi(urls.app, port, args.profile);
  }
  const sizes = await memorySizes(db, citus);

  const pid = child.pid as number;
  const PHASES = ['search', 'vector', 'recall', 'write', 'ann', 'seed-only'];
  const only = args.only ? new Set(args.only.split(',')) : null;
  const unknown = [...(only ?? [])].filter((p) => !PHASES.includes(p));
  if (unknown.length > 0) fail(`--only takes ${PHASES.join(', ')} (seed-only: seed and stop); not ${unknown.join(', ')}`);
  const want = (name: string) => !only || only.has(name);
  const q = (n: number) => encodeURIComponent(queries[n % queries.length] as string);
  const phases: Phase[] = [];
  const load: Load = { base, pid, tenants, seconds: Number(args.seconds), connections: Number(args.connections) };
  // Warm-up: the first searches fill the API's caches (mind size, text statistics) and Postgres's buffers.
  if (want('search')) await phase('warm-up', load, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}` });
  if (want('search')) phases.push(await phase('search hybrid', load, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}`, check: ownItems }));
  if (want('search'))
    phases.push(await phase('search hybrid + filters', load, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}&tag=${TAGS[n % TAGS.length]}&category=${CATEGORIES[n % CATEGORIES.length]}`, check: ownItems }));
  if (want('vector')) phases.push(await phase('search vector-only', load, { method: 'GET', path: (_t, n) => `/v1/memory/search?mode=vector&q=${q(n)}`, check: ownItems }));
  if (want('vector'))
    phases.push(await phase('search vector-only + filters', load, { method: 'GET', path: (_t, n) => `/v1/memory/search?mode=vector&q=${q(n)}&tag=${TAGS[n % TAGS.length]}&category=${CATEGORIES[n % CATEGORIES.length]}`, check: ownItems }));
  if (want('recall')) phases.push(await phase('recall (q, 2000 tokens)', load, { method: 'GET', path: (_t, n) => `/v1/memory/recall?q=${q(n)}&max_tokens=2000` }));
  if (want('write')) {
    const run = Date.now().toString(36);
    const writers = Number(args['write-connections']);
    phases.push(await phase('keyed write (new key)', load, {
      method: 'POST',
      path: () => '/v1/memory',
      body: (t, n) => ({ category: 'note', key: `w${t.index}_${run}_${n}`, content: turns[n % turns.length], tags: [TAGS[n % TAGS.length]] }),
      connections: writers,
    }));
    phases.push(await phase('keyed write (batch of 50)', load, {
      method: 'POST',
      path: () => '/v1/memory/batch',
      body: (t, n) => ({ items: Array.from({ length: 50 }, (_, i) => ({ category: 'note', key: `w${t.index}_${run}_b${n}_${i}`, content: turns[(n * 50 + i) % turns.length] })) }),
      items: 50,
      connections: writers,
    }));
  }

  let ann: Awaited<ReturnType<typeof annRecall>> | undefined;
  if (want('ann')) {
    const big = tenants[0] as Tenant;
    const annQueries = corpus.queries(Number(args['ann-queries'])).map((x) => x.text);
    ann = await annRecall(db, { tenantId: big.id, mindId: big.mindId, queries: annQueries, efSearch: DEFAULT_LIFECYCLE.retrieval.ef_search, exactBelow: DEFAULT_LIFECYCLE.retrieval.exact_scan_below });
    log(`ann: ${JSON.stringify(ann)}`);
  }

  child.kill('SIGTERM');
  await once(child, 'exit');

  const hot = args.profile ? await topFunctions(args.profile) : undefined;
  const associations = args.associations ? await runAssociations(urls.app, tenants) : undefined;
  if (associations) log(`associations: ${JSON.stringify(associations)}`);
  let sweeps: Record<string, number> | undefined;
  if (args.sweeps) {
    // The write phases added memories: the sweeps go over all of them.
    const { rows: now } = await db.query<{ n: number }>('select count(*)::int as n from memories');
    sweeps = await runSweeps(urls.app, tenants, now[0]?.n ?? 0);
  }

  const out = { shape, citus, corpus: corpusKind, profile: hot, tenants: tenantCount, per_tenant: perTenant, connections: Number(args.connections), seconds: Number(args.seconds), date: new Date().toISOString(), sizes, seed, phases, ann, associations, sweeps };
  process.stdout.write(`\n${shape}${citus ? ' on Citus' : ''}: ${sizes.memories} memories; table ${(sizes.table_bytes / 1048576).toFixed(0)} MB, HNSW ${(sizes.vector_index_bytes / 1048576).toFixed(0)} MB, text index ${(sizes.text_index_bytes / 1048576).toFixed(0)} MB; ${args.connections} connections, ${args.seconds} s a phase\n`);
  process.stdout.write('| phase | clients | requests | errors | foreign | req/s | memories/s | p50 ms | p95 ms | p99 ms | API CPU % | API RSS MB |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n');
  for (const p of phases) process.stdout.write(`| ${p.phase} | ${p.connections} | ${p.requests} | ${p.errors} | ${p.foreign} | ${p.rps} | ${p.phase.startsWith('keyed') ? p.memories_per_s : '-'} | ${p.p50_ms} | ${p.p95_ms} | ${p.p99_ms} | ${p.api_cpu_pct} | ${p.api_rss_mb} |\n`);
  if (ann) process.stdout.write(`ANN recall@10 ${ann.recall_at_10} (${ann.path}, ${ann.queries} queries): index p50 ${ann.index_p50_ms} / p95 ${ann.index_p95_ms} ms, exact p50 ${ann.exact_p50_ms} / p95 ${ann.exact_p95_ms} ms\n`);
  if (sweeps) process.stdout.write(`sweeps: ${JSON.stringify(sweeps)}\n`);
  if (hot) {
    process.stdout.write(`\nAPI CPU profile (${args.profile}), self time of the whole run:\n| function | where | self % |\n| --- | --- | --- |\n`);
    for (const h of hot) process.stdout.write(`| ${h.name} | ${h.where} | ${h.self_pct} |\n`);
  }
  if (args.json) await writeFile(args.json, JSON.stringify(out, null, 2));
  await db.end();
  await owner.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

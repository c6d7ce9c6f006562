/**
 * Performance at scale (issue 7): one mind of `--memories` memories, or `--tenants` tenants of
 * `--per-tenant` memories each, measured end to end over HTTP with autocannon against the API
 * running as a child process (`node dist/apps/api/src/main.js`, as production runs it).
 *
 *   npm run bench:scale -- --file ../shared/bench-data/locomo-dev.json --memories 1000000
 *   npm run bench:scale -- --file ../shared/bench-data/locomo-dev.json --tenants 1000 --per-tenant 1000
 *     [--seconds 15] [--connections 4] [--write-connections 16] [--queries 500] [--ann-queries 100]
 *     [--sweeps] [--reuse] [--only search,vector,recall,write,ann|seed-only] [--profile DIR] [--json out.json]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--port 3950]
 *
 * Seeds a scratch database `engram_bench_scale_<shape>` (dropped and re-created unless `--reuse`
 * finds it seeded) with batched set-based inserts as the owner: texts are one or two LoCoMo turns
 * (deterministic), embedded with the default local embedder, in sessions of 20 turns (temporal
 * context and position), with tags, categories, ages over two years and access counts, so that
 * search, filters, neighbours and the sweeps have real work. Tenants and their users are made
 * through the API (`POST /v1/auth/register`), memories straight into the tables; then the ivfflat
 * index is built with `lists` from the rows and the tables analysed.
 *
 * Measures, each for `--seconds` with `--connections` concurrent clients (random tenant per
 * request in the many-tenant shape; writes with `--write-connections`): keyed writes, one a
 * request (`POST /v1/memory`, new keys) and 50 a request (`POST /v1/memory/batch`); hybrid search,
 * with and without filters; vector-only search (`mode=vector`); recall with a question and a
 * token budget; the API's CPU and memory (pidusage, sampled every 250 ms); ANN recall@10 of the
 * index against exact search (the statements search runs); and with `--sweeps`, the forgetting
 * and tiering sweeps' memories per second (they change the data: run them last, or on a copy).
 * Every search answer is checked to hold only the asking tenant's memories.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pidusage from 'pidusage';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase, rebuildVectorIndex, vectorLiteral } from '@engram/db';
import { NO_SCHEDULES, loadConfig } from '@engram/config';
import { HashingEmbedder } from '@engram/embeddings';
import { DEFAULT_LIFECYCLE, contentHash, ivfflatLists } from '@engram/memory';
import { NO_RATE_LIMITS } from '../test/support/env';
import { annRecall } from './ann-recall';
import { failure, locomoCorpus, percentile, prng, scratchUrls } from './support';

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
    sweeps: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    only: { type: 'string' },
    /** Write the API's V8 CPU profile (.cpuprofile: a flame chart in Chrome DevTools or speedscope) here, and print its top functions. */
    profile: { type: 'string' },
    json: { type: 'string' },
    port: { type: 'string', default: '3950' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const ROOT = `${__dirname}/..`;
const DAY = 86_400_000;
const SESSION = 20;
const TAGS = ['work', 'family', 'travel', 'health', 'hobby', 'friends', 'plans', 'feelings'];
const CATEGORIES = ['note', 'preference', 'fact', 'context'];
const PASSWORD = 'bench scale correct horse';

const fail: (message: string) => never = failure('bench:scale');

interface Tenant {
  index: number;
  id: string;
  mindId: string;
  token: string;
}

interface Phase {
  phase: string;
  requests: number;
  errors: number;
  /** Answers that held another tenant's memory (must be 0). */
  foreign: number;
  rps: number;
  /** Memories written per second (write phases; a batch writes many a request). */
  memories_per_s: number;
  connections: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  api_cpu_pct: number;
  api_rss_mb: number;
}

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
}

/** The API as production runs it, on the scratch database, background schedules off (they would run during measurements). */
async function startApi(appUrl: string, port: number): Promise<ChildProcess> {
  const profile = args.profile ? [`--cpu-prof`, `--cpu-prof-dir=${args.profile}`] : [];
  const child = spawn(process.execPath, [...profile, `${ROOT}/dist/apps/api/src/main.js`], {
    env: {
      ...process.env,
      DATABASE_URL: appUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: 'bench-scale-secret-0123456789-0123456789',
      LOG_LEVEL: 'warn',
      ...NO_RATE_LIMITS,
      ...NO_SCHEDULES,
      REDIS_URL: '',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // Not left listening when this script fails.
  process.on('exit', () => child.kill('SIGKILL'));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) fail(`the API exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail('the API did not start within 60 s');
}

async function api<T>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

/** Registers (or, on reuse, logs in) tenant `index`'s user and makes or finds its mind. */
async function tenant(base: string, index: number, reuse: boolean): Promise<Tenant> {
  const email = `scale-${index}@bench.test`;
  const auth = reuse
    ? await api<{ token: string }>(base, 'POST', '/v1/auth/login', { email, password: PASSWORD })
    : await api<{ token: string }>(base, 'POST', '/v1/auth/register', { email, password: PASSWORD, tenant_name: `scale ${index}` });
  if (auth.status >= 300) fail(`tenant ${index}: ${auth.status} ${JSON.stringify(auth.body)}`);
  const token = auth.body.token;
  const me = await api<{ tenant: { id: string } }>(base, 'GET', '/v1/auth/me', undefined, token);
  const minds = await api<{ items: { id: string }[] }>(base, 'GET', '/v1/minds', undefined, token);
  let mindId = minds.body.items[0]?.id;
  if (!mindId) {
    const made = await api<{ id: string }>(base, 'POST', '/v1/minds', { name: 'scale' }, token);
    mindId = made.body.id;
  }
  return { index, id: me.body.tenant.id, mindId, token };
}

async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

/**
 * Inserts `perTenant` memories into each tenant's mind, batch by batch, the next batch embedded
 * while the last one is written. Keys are `t<tenant>_m<n>`, so an answer shows whose memory it is.
 */
async function load(url: string, tenants: Tenant[], perTenant: number, turns: string[], random: () => number): Promise<number> {
  const embedder = new HashingEmbedder();
  // Two writers: PostgreSQL parses vectors and fills the table on both cores while this process embeds.
  const writers = [new Client({ connectionString: url }), new Client({ connectionString: url })];
  await Promise.all(writers.map((w) => w.connect()));
  let turn = 0;
  const started = Date.now();
  const now = started;
  const total = tenants.length * perTenant;
  const BATCH = 2000;
  const pending: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
  for (let at = 0; at < total; at += BATCH) {
    const c = { tenant: [] as string[], mind: [] as string[], id: [] as string[], key: [] as string[], category: [] as string[], content: [] as string[], hash: [] as string[],
      vector: [] as string[], tags: [] as string[], born: [] as string[], access: [] as number[], context: [] as string[], position: [] as number[], importance: [] as number[] };
    for (let i = at; i < Math.min(total, at + BATCH); i++) {
      const t = tenants[Math.floor(i / perTenant)] as Tenant;
      const n = i % perTenant;
      const start = Math.floor(random() * turns.length);
      const text = turns.slice(start, start + 1 + Math.floor(random() * 2)).join('\n');
      const ageDays = 1 + random() * 729;
      // Uses per day so that tiers come out about 10 % hot, 20 % warm, 30 % cold, 40 % archive.
      const u = random();
      const perDay = u < 0.1 ? 12 + random() * 10 : u < 0.3 ? 1.5 + random() * 8 : u < 0.6 ? 0.15 + random() * 0.8 : random() * 0.09;
      c.tenant.push(t.id);
      c.mind.push(t.mindId);
      c.id.push(randomUUID());
      c.key.push(`t${t.index}_m${n}`);
      c.category.push(CATEGORIES[n % CATEGORIES.length] as string);
      c.content.push(text);
      c.hash.push(contentHash(text));
      c.vector.push(vectorLiteral(embedder.embedOne(text)));
      c.tags.push(`{${TAGS[Math.floor(random() * TAGS.length)]},${TAGS[Math.floor(random() * TAGS.length)]}}`);
      c.born.push(new Date(now - ageDays * DAY).toISOString());
      c.access.push(Math.floor(perDay * ageDays));
      c.context.push(`t${t.index}_s${Math.floor(n / SESSION)}`);
      c.position.push(n % SESSION);
      c.importance.push(Math.round(random() * 100) / 100);
    }
    const w = turn++ % writers.length;
    await pending[w];
    pending[w] = (writers[w] as Client).query(
      `insert into memories (tenant_id, id, mind_id, category, key, content, source, confidence, content_hash, embedding, embedding_model, embedding_status,
                             tags, occurred_at, created_at, updated_at, access_count, importance_score, initial_retention, current_retention, retention_at,
                             strength_days, temporal_context, temporal_position)
       select u.tenant, u.id, u.mind, u.category, u.key, u.content, 'agent', 0.7, u.hash, u.vector::vector, $1, 'ready',
              u.tags::text[], u.born, u.born, u.born, u.access, u.importance, 0.5 + u.importance / 2, 0.5 + u.importance / 2, u.born,
              1 + 30 * u.importance, u.context, u.position
       from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[],
                   $12::int[], $13::float8[], $14::text[], $15::int[])
            as u(tenant, id, mind, key, category, content, hash, vector, tags, born, access, importance, context, position)`,
      [embedder.model, c.tenant, c.id, c.mind, c.key, c.category, c.content, c.hash, c.vector, c.tags, c.born, c.access, c.importance, c.context, c.position],
    );
    if ((at / BATCH) % 25 === 0) log(`loaded ${at}/${total} (${Math.round(at / Math.max(1, (Date.now() - started) / 1000))}/s)`);
  }
  await Promise.all(pending);
  await Promise.all(writers.map((w) => w.end()));
  const seconds = (Date.now() - started) / 1000;
  log(`loaded ${total} memories in ${seconds.toFixed(0)} s (${Math.round(total / seconds)}/s)`);
  return seconds;
}

/** CPU (% of one core, mean) and RSS (MB, max) of `pid` while `during` runs. */
async function sampled<T>(pid: number, during: () => Promise<T>): Promise<{ result: T; cpu: number; rss: number }> {
  const cpu: number[] = [];
  let rss = 0;
  const timer = setInterval(() => {
    pidusage(pid).then((s) => {
      cpu.push(s.cpu);
      rss = Math.max(rss, s.memory / 1048576);
    }, () => undefined);
  }, 250);
  try {
    const result = await during();
    return { result, cpu: cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length), rss };
  } finally {
    clearInterval(timer);
  }
}

/**
 * One phase of load: `path(tenant, n)` and `body(tenant, n)` make each request for a random
 * tenant; `check` reads each 2xx answer and says whether it holds another tenant's memory.
 */
async function phase(
  name: string,
  base: string,
  apiPid: number,
  tenants: Tenant[],
  request: {
    method: 'GET' | 'POST';
    path: (t: Tenant, n: number) => string;
    body?: (t: Tenant, n: number) => unknown;
    check?: (t: Tenant, body: string) => boolean;
    /** Memories each request writes (a batch): the row's memories per second. */
    items?: number;
    connections?: number;
  },
): Promise<Phase> {
  const random = prng(name.length * 7919);
  let n = 0;
  let foreign = 0;
  let errors = 0;
  const latencies: number[] = [];
  const { result, cpu, rss } = await sampled(apiPid, async () => {
    return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: base,
      connections: request.connections ?? Number(args.connections),
      duration: Number(args.seconds),
      requests: [
        {
          setupRequest: (req: autocannon.Request, context: object) => {
            const t = tenants[Math.floor(random() * tenants.length)] as Tenant;
            (context as { tenant?: Tenant }).tenant = t;
            const i = n++;
            return {
              ...req,
              method: request.method,
              path: request.path(t, i),
              headers: { authorization: `Bearer ${t.token}`, 'x-mind-id': t.mindId, 'content-type': 'application/json' },
              body: request.body ? JSON.stringify(request.body(t, i)) : undefined,
            };
          },
          onResponse: (status: number, body: string, context: object) => {
            if (status >= 300) {
              if (errors++ < 3) log(`${name}: ${status} ${body.slice(0, 300)}`);
            } else if (request.check && !request.check((context as { tenant: Tenant }).tenant, body)) foreign++;
          },
        },
      ],
    }, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
    });
  });
  const row: Phase = {
    phase: name,
    requests: latencies.length,
    errors: errors + result.errors + result.timeouts,
    foreign,
    rps: Math.round(latencies.length / Number(args.seconds)),
    memories_per_s: Math.round(((request.items ?? 1) * latencies.length) / Number(args.seconds)),
    connections: request.connections ?? Number(args.connections),
    p50_ms: +percentile(latencies, 50).toFixed(1),
    p95_ms: +percentile(latencies, 95).toFixed(1),
    p99_ms: +percentile(latencies, 99).toFixed(1),
    api_cpu_pct: Math.round(cpu),
    api_rss_mb: Math.round(rss),
  };
  log(`${name}: ${JSON.stringify(row)}`);
  return row;
}

/** True when every item of a search answer is the asking tenant's (keys carry the tenant). */
function ownItems(t: Tenant, body: string): boolean {
  const items = (JSON.parse(body) as { items: { key: string }[] }).items;
  return items.every((m) => m.key.startsWith(`t${t.index}_`) || m.key.startsWith(`w${t.index}_`));
}

async function main(): Promise<void> {
  if (!args.file) fail('--file <locomo json> is required');
  const many = args.tenants !== undefined;
  const tenantCount = many ? Number(args.tenants) : 1;
  const perTenant = many ? Number(args['per-tenant']) : Number(args.memories ?? '10000');
  if (!(tenantCount >= 1 && perTenant >= 1)) fail('--memories, --tenants and --per-tenant take positive numbers');
  const shape = many ? `t${tenantCount}x${perTenant}` : `m${perTenant}`;
  const dbName = `engram_bench_scale_${shape}`;

  const random = prng(20261130);
  const { turns, queries } = await locomoCorpus(args.file, { count: Number(args.queries), random, speakers: true });
  const urls = scratchUrls(args['database-url'], dbName);

  const admin = new Client({ connectionString: args['database-url'] });
  await admin.connect();
  let seeded = false;
  if (args.reuse) {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
    if (exists.rowCount) {
      const probe = new Client({ connectionString: urls.owner });
      await probe.connect();
      const { rows } = await probe.query<{ n: number }>(`select count(*)::int as n from memories where key like 't%'`);
      await probe.end();
      seeded = rows[0]!.n === tenantCount * perTenant;
    }
    log(seeded ? `reusing ${dbName}` : `${dbName} is not seeded with this shape: seeding`);
  }
  if (!seeded) {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.query(`create database ${dbName}`);
  }
  await admin.end();
  const owner = openOwnerDatabase(urls.owner);
  await migrateToLatest(owner);
  const db = new Client({ connectionString: urls.owner });
  await db.connect();

  const port = Number(args.port);
  const base = `http://127.0.0.1:${port}`;
  let child = await startApi(urls.app, port);
  const tenants = await inParallel(tenantCount, 8, (i) => tenant(base, i, seeded));
  log(`${tenants.length} tenants ready`);

  const seed: Record<string, number> = {};
  if (!seeded) {
    // Secondary indexes are built once the rows are in (a bulk build is many times faster than
    // upkeep row by row); the primary key, the key's uniqueness and the vector index stay.
    const { rows: indexes } = await db.query<{ name: string; def: string }>(`
      select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = 'memories'::regclass and not x.indisunique and i.relname <> 'memories_embedding_idx'`);
    for (const i of indexes) await db.query(`drop index ${i.name}`);
    seed.load_seconds = await load(urls.owner, tenants, perTenant, turns, random);
    let t0 = Date.now();
    await db.query(`set maintenance_work_mem = '1GB'`);
    for (const i of indexes) await db.query(i.def);
    seed.secondary_index_seconds = (Date.now() - t0) / 1000;
    log(`${indexes.length} secondary indexes rebuilt in ${seed.secondary_index_seconds.toFixed(0)} s`);
    // ivfflat's lists are centred on the data it is built on: rebuilt now that the rows are in.
    t0 = Date.now();
    const rows = tenantCount * perTenant;
    // What `npm run db:reindex` does (lists from the rows, recorded in the index's comment), with the memory a build of a million wants.
    await db.query(`alter database ${dbName} set maintenance_work_mem = '2GB'`);
    if (!(await rebuildVectorIndex({ kind: 'postgres', url: urls.owner }, ivfflatLists(rows), rows, new Date()))) fail('the vector index is being rebuilt by someone else');
    await db.query(`alter database ${dbName} reset maintenance_work_mem`);
    seed.index_seconds = (Date.now() - t0) / 1000;
    t0 = Date.now();
    await db.query('vacuum analyze memories');
    seed.analyze_seconds = (Date.now() - t0) / 1000;
    log(`vector index ${seed.index_seconds.toFixed(0)} s, vacuum analyze ${seed.analyze_seconds.toFixed(0)} s`);
    // A fresh process: nothing cached from the seeding (sizes, statistics).
    child.kill('SIGTERM');
    await once(child, 'exit');
    child = await startApi(urls.app, port);
  }
  const { rows: sizeRows } = await db.query(`
    select pg_table_size('memories') as table_bytes, pg_relation_size('memories_embedding_idx') as vector_index_bytes,
           pg_relation_size('memories_search_idx') as text_index_bytes, (select count(*)::int from memories) as memories`);
  const sizes = sizeRows[0];

  const pid = child.pid as number;
  const PHASES = ['search', 'vector', 'recall', 'write', 'ann', 'seed-only'];
  const only = args.only ? new Set(args.only.split(',')) : null;
  const unknown = [...(only ?? [])].filter((p) => !PHASES.includes(p));
  if (unknown.length > 0) fail(`--only takes ${PHASES.join(', ')} (seed-only: seed and stop); not ${unknown.join(', ')}`);
  const want = (name: string) => !only || only.has(name);
  const q = (n: number) => encodeURIComponent(queries[n % queries.length] as string);
  const phases: Phase[] = [];
  // Warm-up: the first searches fill the API's caches (mind size, text statistics) and Postgres's buffers.
  if (want('search')) await phase('warm-up', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}` });
  if (want('search')) phases.push(await phase('search hybrid', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}`, check: ownItems }));
  if (want('search'))
    phases.push(await phase('search hybrid + filters', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/search?q=${q(n)}&tag=${TAGS[n % TAGS.length]}&category=${CATEGORIES[n % CATEGORIES.length]}`, check: ownItems }));
  if (want('vector')) phases.push(await phase('search vector-only', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/search?mode=vector&q=${q(n)}`, check: ownItems }));
  if (want('vector'))
    phases.push(await phase('search vector-only + filters', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/search?mode=vector&q=${q(n)}&tag=${TAGS[n % TAGS.length]}&category=${CATEGORIES[n % CATEGORIES.length]}`, check: ownItems }));
  if (want('recall')) phases.push(await phase('recall (q, 2000 tokens)', base, pid, tenants, { method: 'GET', path: (_t, n) => `/v1/memory/recall?q=${q(n)}&max_tokens=2000` }));
  if (want('write')) {
    const run = Date.now().toString(36);
    const writers = Number(args['write-connections']);
    phases.push(await phase('keyed write (new key)', base, pid, tenants, {
      method: 'POST',
      path: () => '/v1/memory',
      body: (t, n) => ({ category: 'note', key: `w${t.index}_${run}_${n}`, content: turns[n % turns.length], tags: [TAGS[n % TAGS.length]] }),
      connections: writers,
    }));
    phases.push(await phase('keyed write (batch of 50)', base, pid, tenants, {
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
    ann = await annRecall(db, { tenantId: big.id, mindId: big.mindId, queries: queries.slice(0, Number(args['ann-queries'])), probes: DEFAULT_LIFECYCLE.retrieval.probes, exactBelow: DEFAULT_LIFECYCLE.retrieval.exact_scan_below });
    log(`ann: ${JSON.stringify(ann)}`);
  }

  child.kill('SIGTERM');
  await once(child, 'exit');

  const hot = args.profile ? await topFunctions(args.profile) : undefined;
  let sweeps: Record<string, number> | undefined;
  if (args.sweeps) {
    // The write phases added memories: the sweeps go over all of them.
    const { rows: now } = await db.query<{ n: number }>('select count(*)::int as n from memories');
    sweeps = await runSweeps(urls.app, tenants, now[0]?.n ?? 0);
  }

  const out = { shape, profile: hot, tenants: tenantCount, per_tenant: perTenant, connections: Number(args.connections), seconds: Number(args.seconds), date: new Date().toISOString(), sizes, seed, phases, ann, sweeps };
  process.stdout.write(`\n${shape}: ${sizes.memories} memories; table ${(sizes.table_bytes / 1048576).toFixed(0)} MB, ivfflat ${(sizes.vector_index_bytes / 1048576).toFixed(0)} MB, text index ${(sizes.text_index_bytes / 1048576).toFixed(0)} MB; ${args.connections} connections, ${args.seconds} s a phase\n`);
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

/** The 20 functions with the most self time in the newest .cpuprofile of `dir` (V8's sampling profiler, `node --cpu-prof`). */
async function topFunctions(dir: string): Promise<{ name: string; where: string; self_pct: number }[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const newest = files[files.length - 1];
  if (!newest) return [];
  const profile = JSON.parse(await readFile(`${dir}/${newest}`, 'utf8')) as { nodes: { callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[] };
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const where = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(`${ROOT}/`, '');
    const key = `${n.callFrame.functionName || '(anonymous)'}\u0000${where ? `${where}:${n.callFrame.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([key, hits]) => {
      const [name, where] = key.split('\u0000') as [string, string];
      return { name, where, self_pct: +((100 * hits) / Math.max(1, total)).toFixed(1) };
    });
}

/** Forgetting then tiering over every tenant, in this process (the worker's code, from dist), at now + 30 days. */
async function runSweeps(appUrl: string, tenants: Tenant[], memories: number): Promise<Record<string, number>> {
  const { createApp } = (await import(`${ROOT}/dist/apps/api/src/create-app.js`)) as typeof import('../apps/api/src/create-app');
  const { LifecycleSweeps } = (await import(`${ROOT}/dist/libs/consolidation/src/index.js`)) as typeof import('@engram/consolidation');
  const config = loadConfig({ DATABASE_URL: appUrl, JWT_SECRET: 'bench-scale-secret-0123456789-0123456789', LOG_LEVEL: 'silent', ...NO_SCHEDULES });
  const app = await createApp(config);
  await app.init();
  const sweeps = app.get(LifecycleSweeps);
  const at = new Date(Date.now() + 30 * DAY);
  const out: Record<string, number> = {};
  // Each sweep twice at the same instant: first with every memory due (a catch-up: the seeded
  // memories were last snapshotted when they were made), then again, when nothing has changed
  // (the steady state between two runs: the cost of looking).
  for (const pass of ['due', 'idle'] as const) {
    for (const kind of ['forgetting', 'tiering'] as const) {
      const t0 = Date.now();
      for (const t of tenants) {
        const report = (await sweeps[kind](t.id, at)) as unknown as Record<string, number>;
        for (const [k, v] of Object.entries(report)) out[`${pass}_${kind}_${k}`] = (out[`${pass}_${kind}_${k}`] ?? 0) + v;
      }
      const seconds = (Date.now() - t0) / 1000;
      out[`${pass}_${kind}_seconds`] = +seconds.toFixed(1);
      out[`${pass}_${kind}_memories_per_second`] = Math.round(memories / seconds);
      log(`${kind} sweep (${pass}) over ${tenants.length} tenants, ${memories} memories: ${seconds.toFixed(1)} s`);
    }
  }
  await app.close();
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

/**
 * Engram side by side with its peers (issue 16 item 5), in one run, on the same PostgreSQL, the
 * same texts and the same vectors: Engram's API over HTTP, mem0's open-source library
 * (`mem0ai/oss` 3.3.1, pgvector store, in process), and the bare SQL of Engram's search.
 *
 *   npm run bench:peers -- [--file ../shared/bench-data/locomo-dev.json] [--conversations 2]
 *     [--seconds 10] [--clients 1,4] [--add-clients <max of --clients>] [--capture 50]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--port 3960] [--embeddings-port 3961] [--json out.json] [--profile plans.txt] [--keep-databases]
 *
 * - One local OpenAI-compatible embeddings server (bench/peers/embeddings-server.ts, its own
 *   process) answers Engram's default embedder's vectors (the hashing embedder); Engram reaches it
 *   through `EMBEDDINGS_URL`, mem0 through `embedder.config.baseURL`.
 * - A fresh database per system on `--database-url` (a superuser; PostgreSQL on this machine, so
 *   that its backends' CPU can be read from /proc), dropped at the end.
 * - Engram: the built API (`node dist/apps/api/src/main.js`) as a child process, rate limits and
 *   schedules off, one mind and Mind Key per conversation; every turn stored with
 *   `POST /v1/memory` (category `note`, the importer's key and content; no tags, no dates),
 *   searched with `GET /v1/memory/search?limit=10&q=`.
 * - mem0: bench/peers/mem0/driver.mjs, a child process holding one `Memory` (one pg.Client, its
 *   design), installed on demand in bench/peers/mem0 (`npm ci`), run with MEM0_TELEMETRY=false;
 *   `add(content, {userId, infer: false, metadata: {dia_id}})` (the dia_id only to score) and
 *   `search(q, {filters: {user_id}, topK: 10})`, one user per conversation.
 * - Bare SQL: the statements the API ran for `--capture` searches (recorded inside the API by
 *   bench/peers/record-sql.cjs), replayed through `pg` with the same parameters (bare-sql.ts).
 *
 * Reports: adds (every turn, `--add-clients` at a time) p50/p95 and throughput; searches for
 * `--seconds` at each of `--clients` p50/p95 and throughput; CPU per operation (the client
 * process: the API, mem0's process or this one for the bare SQL; plus the database's backends);
 * LoCoMo evidence recall@10 over QA categories 1-4 on the same turns (one search at a time); and
 * the ratios Engram/mem0 and Engram/bare SQL.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase } from '@engram/db';
import { parseConversation, parseEvidence, turnMemory } from '../scripts/locomo';
import { bareClient, profile, replay } from './peers/bare-sql';
import { measuredCpu } from './peers/cpu';
import { api, epochMs, mindKeys, startEngram, type EngramApi } from './peers/engram';
import { ensureMem0, startMem0, type Mem0, type Timed } from './peers/mem0';
import { log } from './scale-api';
import { percentile, prng, recallAt, scratchUrls } from './support';

const ROOT = resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    file: { type: 'string', default: resolve(ROOT, '../shared/bench-data/locomo-dev.json') },
    conversations: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '1,4' },
    'add-clients': { type: 'string' },
    capture: { type: 'string', default: '50' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '3960' },
    'embeddings-port': { type: 'string', default: '3961' },
    json: { type: 'string' },
    profile: { type: 'string' },
    'keep-databases': { type: 'boolean', default: false },
  },
});
/** Thrown, not exited: the run's `finally` drops the scratch databases. */
const fail = (message: string): never => {
  // Said at once: the clean-up (dropping the databases) may end the run before the error is printed.
  log(`failed: ${message}`);
  throw new Error(message);
};

interface Turn {
  conversation: number;
  key: string;
  content: string;
  diaId: string;
}
interface Question {
  conversation: number;
  q: string;
  evidence: string[];
}
interface Row {
  phase: string;
  system: string;
  clients: number;
  ops: number;
  errors: number;
  ops_per_s: number;
  p50_ms: number;
  p95_ms: number;
  client_cpu_ms_per_op: number;
  pg_cpu_ms_per_op: number;
  cpu_ms_per_op: number;
}

const round = (x: number, d = 1) => Number(x.toFixed(d));

function row(phase: string, system: string, clients: number, t: { latencies: number[]; errors?: number; wallMs: number }, cpu: { client_ms: number; pg_ms: number }): Row {
  const ops = t.latencies.length;
  return {
    phase,
    system,
    clients,
    ops,
    errors: t.errors ?? 0,
    ops_per_s: round(ops / (t.wallMs / 1000)),
    p50_ms: round(percentile(t.latencies, 50), 2),
    p95_ms: round(percentile(t.latencies, 95), 2),
    client_cpu_ms_per_op: round(cpu.client_ms / Math.max(1, ops), 2),
    pg_cpu_ms_per_op: round(cpu.pg_ms / Math.max(1, ops), 2),
    cpu_ms_per_op: round((cpu.client_ms + cpu.pg_ms) / Math.max(1, ops), 2),
  };
}

/** `fn(i)` for i in 0..n-1, `width` at a time: each call's latency (ms) and the wall time. */
async function timedPool(n: number, width: number, fn: (i: number) => Promise<void>): Promise<Timed> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next++;
      const s = performance.now();
      await fn(i);
      latencies.push(performance.now() - s);
    }
  }));
  return { latencies, wallMs: performance.now() - t0 };
}

/** Searches round robin over `questions` for `seconds` with `clients` at a time. */
async function timedLoop(clients: number, seconds: number, fn: (n: number) => Promise<boolean>): Promise<Timed> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      const s = performance.now();
      if (await fn(next++)) latencies.push(performance.now() - s);
      else errors += 1;
    }
  }));
  return { latencies, errors, wallMs: performance.now() - t0 };
}

/**
 * `analyze` in each database (owner URLs) when the server's autovacuum is off, as it would have
 * after a load. @returns whether it ran
 */
async function analyzeUnlessAutovacuum(admin: Client, databases: readonly string[]): Promise<boolean> {
  const { rows } = await admin.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0]?.autovacuum !== 'off') return false;
  for (const url of databases) {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('analyze');
    } finally {
      await c.end();
    }
  }
  return true;
}

async function startEmbeddings(port: number): Promise<{ url: string; stop: () => void }> {
  const child = spawn(`${ROOT}/node_modules/.bin/tsx`, ['--tsconfig', 'tsconfig.json', 'bench/peers/embeddings-server.ts', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill('SIGKILL'));
  await new Promise<void>((ok, no) => {
    child.once('exit', (code) => no(new Error(`the embeddings server exited with ${code}`)));
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('listening') && ok());
  });
  return { url: `http://127.0.0.1:${port}/v1`, stop: () => child.kill('SIGTERM') };
}

function machine(pgVersion: string, sharedBuffers: string, vectorVersion: string, mem0Version: string) {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    if (execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim()) commit += ' (uncommitted changes)';
  } catch {
    /* not a checkout */
  }
  return {
    date: new Date().toISOString(),
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    load_average_1m_at_start: round(loadavg()[0] ?? 0, 2),
    node: process.version,
    postgresql: pgVersion,
    shared_buffers: sharedBuffers,
    pgvector: vectorVersion,
    mem0ai: mem0Version,
    engram_commit: commit,
  };
}

async function main(): Promise<void> {
  const file = args.file as string;
  if (!existsSync(file)) fail(`no LoCoMo file at ${file} (give --file)`);
  const clientLevels = (args.clients as string).split(',').map(Number);
  if (!clientLevels.every((n) => Number.isInteger(n) && n >= 1)) fail('--clients takes positive integers, comma-separated (e.g. 1,4)');
  const addClients = Number(args['add-clients'] ?? Math.max(...clientLevels));
  const seconds = Number(args.seconds);
  const count = Number(args.conversations);
  if (!(seconds > 0 && count >= 1 && addClients >= 1)) fail('--seconds, --conversations and --add-clients take positive numbers');

  // The same texts for both: the first `count` dev conversations' turns, and their QA items of
  // categories 1-4 with usable evidence (scored), shuffled once for the load (conversations mixed).
  const raw = JSON.parse(await readFile(file, 'utf8')) as unknown[];
  const conversations = raw.slice(0, count).map(parseConversation);
  const turns: Turn[] = [];
  const questions: Question[] = [];
  conversations.forEach((c, ci) => {
    c.turns.forEach((t, i) => {
      const m = turnMemory(c, i);
      turns.push({ conversation: ci, key: m.key, content: m.content, diaId: t.diaId });
    });
    const known = new Set(c.turns.map((t) => t.diaId));
    for (const qa of c.qa) {
      const ev = parseEvidence(qa.evidence, known);
      if (qa.category >= 1 && qa.category <= 4 && ev.ids.length > 0 && qa.question.trim()) questions.push({ conversation: ci, q: qa.question.slice(0, 1000), evidence: ev.ids });
    }
  });
  const random = prng(20261216);
  const load = [...questions];
  for (let i = load.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [load[i], load[j]] = [load[j] as Question, load[i] as Question];
  }
  const diaOfKey = new Map(turns.map((t) => [`${t.conversation}:${t.key}`, t.diaId]));
  log(`${conversations.length} conversations: ${turns.length} turns, ${questions.length} QA items (categories 1-4)`);

  ensureMem0();
  const admin = new Client({ connectionString: args['database-url'] });
  await admin.connect();
  const run = Date.now().toString(36);
  const engramDb = `peers_engram_${run}`;
  const mem0Db = `peers_mem0_${run}`;
  const urls = scratchUrls(args['database-url'] as string, engramDb);
  const mem0Url = scratchUrls(args['database-url'] as string, mem0Db).owner;
  let engram: EngramApi | undefined;
  let mem0: Mem0 | undefined;
  let embeddings: { url: string; stop: () => void } | undefined;
  const historyDbPath = resolve(tmpdir(), `bench-peers-mem0-history-${run}.db`);
  try {
    await admin.query(`create database ${engramDb}`);
    await admin.query(`create database ${mem0Db}`);
    const owner = openOwnerDatabase(urls.owner);
    await migrateToLatest(owner);
    await owner.destroy();
    const probe = new Client({ connectionString: urls.owner });
    await probe.connect();
    const vectorVersion = (await probe.query<{ v: string }>(`select extversion as v from pg_extension where extname = 'vector'`)).rows[0]?.v ?? 'unknown';
    await probe.end();
    const pgVersion = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? 'unknown';

    embeddings = await startEmbeddings(Number(args['embeddings-port']));
    engram = await startEngram({ appUrl: urls.app, port: Number(args.port), embeddingsUrl: embeddings.url, recordFile: resolve(tmpdir(), `bench-peers-sql-${run}.json`) });
    const keys = await mindKeys(engram.base, conversations.map((c) => `peers ${c.sampleId}`));
    mem0 = await startMem0();
    const { version: mem0Version } = await mem0.call<{ version: string }>('init', { databaseUrl: mem0Url, embeddingsUrl: embeddings.url, historyDbPath });
    const sharedBuffers = (await admin.query<{ shared_buffers: string }>('show shared_buffers')).rows[0]?.shared_buffers ?? 'unknown';
    const facts = machine(pgVersion, sharedBuffers, vectorVersion, mem0Version);
    log(`machine: ${JSON.stringify(facts)}`);
    const e = engram;
    const m = mem0;
    const apiPid = e.child.pid as number;
    const userOf = (ci: number) => `conv-${conversations[ci]?.sampleId ?? ci}`;
    const rows: Row[] = [];

    // Adds: every turn once, one a call.
    log(`adds: ${turns.length} turns each, ${addClients} at a time`);
    const ea = await measuredCpu(admin, engramDb, apiPid, () =>
      timedPool(turns.length, addClients, async (i) => {
        const t = turns[i] as Turn;
        const res = await api(e.base, 'POST', '/v1/memory', keys[t.conversation], { category: 'note', key: t.key, content: t.content });
        if (res.status !== 201 && res.status !== 200) fail(`POST /v1/memory answered ${res.status}: ${JSON.stringify(res.body)}`);
      }),
    );
    rows.push(row('add', 'engram', addClients, ea.result, ea));
    const ma = await measuredCpu(admin, mem0Db, m.pid, () => m.call<Timed>('add', { items: turns.map((t) => ({ userId: userOf(t.conversation), text: t.content, diaId: t.diaId })), clients: addClients }));
    rows.push(row('add', 'mem0', addClients, ma.result, ma));

    // What autovacuum does after a load (788 rows are past its analyze threshold of 50 + 10 %),
    // done here when the server runs without it (this machine's CI configuration): unanalyzed,
    // every by-id look-up of Engram's search was planned as a scan of the whole mind.
    const analyzed = await analyzeUnlessAutovacuum(admin, [urls.owner, mem0Url]);
    if (analyzed) log('autovacuum is off on this server: both databases analyzed after the adds, as it would have');

    // Recall@10, one search at a time, every scored question (this also warms both up).
    log(`recall: ${questions.length} searches each, one at a time`);
    const engramTurns: string[][] = [];
    for (const q of questions) {
      const res = await api<{ items: { key: string }[] }>(e.base, 'GET', `/v1/memory/search?limit=10&q=${encodeURIComponent(q.q)}`, keys[q.conversation]);
      if (res.status !== 200) fail(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
      engramTurns.push(res.body.items.map((x) => diaOfKey.get(`${q.conversation}:${x.key}`) ?? ''));
    }
    const { results: mem0Turns } = await m.call<{ results: string[][] }>('rank', { queries: questions.map((q) => ({ userId: userOf(q.conversation), q: q.q })) });
    const recall = (ranked: string[][]) => questions.reduce((s, q, i) => s + recallAt({ results: (ranked[i] ?? []).map((d) => ({ turns: [d] })) }, q.evidence, 10), 0) / questions.length;
    const recallAt10 = { engram: round(recall(engramTurns), 3), mem0: round(recall(mem0Turns), 3), n: questions.length };

    // The statements of `--capture` searches, as the API ran them, for the bare-SQL replay.
    const captured = await e.record(async () => {
      const windows: { start: number; end: number }[] = [];
      for (const q of load.slice(0, Number(args.capture))) {
        const start = epochMs();
        await api(e.base, 'GET', `/v1/memory/search?limit=10&q=${encodeURIComponent(q.q)}`, keys[q.conversation]);
        windows.push({ start, end: epochMs() });
      }
      return windows;
    });
    const searches = captured.filter((s) => s.length > 0);
    if (searches.length === 0) fail('no statements were recorded for the captured searches (bench/peers/record-sql.cjs)');
    const statementsPerSearch = round(searches.reduce((s, x) => s + x.length, 0) / searches.length, 2);
    // What one search sent, for the reader: each statement's first words, whitespace collapsed.
    const oneSearch = (searches[0] ?? []).map((st) => st.text.replace(/\s+/g, ' ').trim().slice(0, 110));
    const bare = await Promise.all(Array.from({ length: Math.max(...clientLevels) }, () => bareClient(urls.app)));
    await replay(bare.slice(0, 1), searches, 1); // warm-up
    if (args.profile) {
      // Per statement kind, on a quiet connection (after the recall pass warmed the caches).
      const p = await profile(bare[0] as Client, searches, 3);
      await writeFile(args.profile as string, `${p.per_search_ms.map((x) => `${x.ms.toFixed(3)} ms  ${x.per_search}x  ${x.kind}`).join('\n')}\n\n${p.plans.join('\n\n')}\n`);
      log(`profile of the bare SQL written to ${args.profile}`);
    }

    // Searches for `--seconds` at each client count: Engram, mem0, the bare SQL.
    for (const clients of clientLevels) {
      log(`search: ${seconds} s at ${clients} client(s), each system`);
      const es = await measuredCpu(admin, engramDb, apiPid, () =>
        timedLoop(clients, seconds, async (n) => {
          const q = load[n % load.length] as Question;
          const res = await fetch(`${e.base}/v1/memory/search?limit=10&q=${encodeURIComponent(q.q)}`, { headers: { authorization: `Bearer ${keys[q.conversation]}` } });
          await res.arrayBuffer();
          return res.status === 200;
        }),
      );
      rows.push(row('search', 'engram', clients, es.result, es));
      const ms = await measuredCpu(admin, mem0Db, m.pid, () => m.call<Timed>('search', { queries: load.map((q) => ({ userId: userOf(q.conversation), q: q.q })), clients, seconds }));
      rows.push(row('search', 'mem0', clients, ms.result, ms));
      const bs = await measuredCpu(admin, engramDb, null, () => replay(bare.slice(0, clients), searches, seconds));
      if (bs.result.first_error) log(`bare SQL: ${bs.result.errors} errors, first: ${bs.result.first_error}`);
      rows.push(row('search', 'bare SQL', clients, { latencies: bs.result.latencies, errors: bs.result.errors, wallMs: bs.result.wall_ms }, bs));
    }
    await Promise.all(bare.map((c) => c.end()));

    const embedStats = await fetch(`${embeddings.url.replace(/\/v1$/, '')}/stats`).then((r) => r.json() as Promise<unknown>);
    const get = (phase: string, system: string, clients: number) => rows.find((r) => r.phase === phase && r.system === system && r.clients === clients) as Row;
    const ratios: Record<string, number> = {};
    const ea0 = get('add', 'engram', addClients);
    const ma0 = get('add', 'mem0', addClients);
    ratios[`add throughput Engram/mem0 (${addClients} clients; target >= 2)`] = round(ea0.ops_per_s / ma0.ops_per_s, 2);
    for (const c of clientLevels) {
      const es = get('search', 'engram', c);
      const ms = get('search', 'mem0', c);
      const bs = get('search', 'bare SQL', c);
      ratios[`search throughput Engram/mem0 (${c} client${c > 1 ? 's' : ''}${c === 4 ? '; target >= 3' : ''})`] = round(es.ops_per_s / ms.ops_per_s, 2);
      ratios[`search p50 Engram/bare SQL (${c} client${c > 1 ? 's' : ''})`] = round(es.p50_ms / bs.p50_ms, 2);
      ratios[`search throughput bare SQL/Engram (${c} client${c > 1 ? 's' : ''})`] = round(bs.ops_per_s / es.ops_per_s, 2);
      ratios[`search CPU per search Engram/bare SQL (${c} client${c > 1 ? 's' : ''}; target <= 2)`] = round(es.cpu_ms_per_op / bs.cpu_ms_per_op, 2);
    }
    ratios['recall@10 Engram - mem0 (target >= 0)'] = round(recallAt10.engram - recallAt10.mem0, 3);

    const out = { machine: facts, analyzed_after_adds: analyzed, conversations: conversations.length, turns: turns.length, questions: questions.length, seconds, add_clients: addClients, clients: clientLevels, rows, recall_at_10: recallAt10, bare_sql: { searches: searches.length, statements_per_search: statementsPerSearch, one_search: oneSearch }, ratios, embeddings_server: embedStats };
    const lines = [
      '',
      `bench:peers ${facts.date}: ${facts.cores} cores (${facts.cpu}), load average ${facts.load_average_1m_at_start} at start, node ${facts.node}, PostgreSQL ${facts.postgresql} (shared_buffers ${facts.shared_buffers}), pgvector ${facts.pgvector}, mem0ai ${facts.mem0ai}, Engram ${facts.engram_commit}`,
      `${conversations.length} LoCoMo dev conversations: ${turns.length} turns, ${questions.length} QA items (categories 1-4); ${seconds} s a search phase; bare SQL = ${searches.length} recorded searches, ${statementsPerSearch} statements each`,
      '',
      '| phase | system | clients | ops | errors | ops/s | p50 ms | p95 ms | CPU ms/op: client | PostgreSQL | total |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows.map((r) => `| ${r.phase} | ${r.system} | ${r.clients} | ${r.ops} | ${r.errors} | ${r.ops_per_s} | ${r.p50_ms} | ${r.p95_ms} | ${r.client_cpu_ms_per_op} | ${r.pg_cpu_ms_per_op} | ${r.cpu_ms_per_op} |`),
      '',
      `LoCoMo dev evidence recall@10 (categories 1-4, n = ${recallAt10.n}): Engram ${recallAt10.engram}, mem0 ${recallAt10.mem0}`,
      '',
      'The statements of one recorded search (replayed as the bare SQL):',
      ...oneSearch.map((t, i) => `  ${i + 1}. ${t}`),
      '',
      'Ratios:',
      ...Object.entries(ratios).map(([k, v]) => `  ${k}: ${v}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (args.json) await writeFile(args.json, JSON.stringify(out, null, 2));
  } finally {
    await mem0?.call('close').catch(() => undefined);
    await mem0?.stop();
    await engram?.stop();
    embeddings?.stop();
    if (args['keep-databases']) log(`kept the scratch databases ${engramDb} and ${mem0Db} (drop them yourself)`);
    else for (const db of [engramDb, mem0Db]) await admin.query(`drop database if exists ${db} with (force)`).catch((error: unknown) => log(`could not drop ${db}: ${String(error)}`));
    await admin.end();
    await rm(historyDbPath, { force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:peers: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

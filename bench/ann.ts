/**
 * ivfflat against exact vector search, by mind size: recall@10 of the index against the exact
 * answer, and the latency of each, so that `retrieval.exact_scan_below` and `retrieval.probes`
 * are chosen by measurement (issue 3: "ANN recall@10 against exact search ≥ 0.95").
 *
 *   npm run bench:ann -- --file ../shared/bench-data/locomo-dev.json [--rows 100000]
 *     [--minds 700,5000,20000,50000] [--probes 1,5,10,20] [--queries 200] [--json out.json]
 *     [--corpus distinct|repeated] [--corpus-seed 16001] [--index ivfflat,hnsw] [--ef-search 40,100,200]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--db NAME] [--reuse]
 *
 * Builds a scratch database (`--db`, default `engram_bench_ann_distinct`, or `engram_bench_ann`
 * for the repeated corpus; dropped and re-created) on that server, with `--rows` memories in one
 * tenant: one mind of each `--minds` size and the rest in minds of 10 000. Texts are the
 * `--corpus`: bench/corpus.ts's `distinct` (default: bench:scale's, no text repeated) or
 * `repeated` (bench:scale's old one: one or two consecutive turns, each turn ~18 times in
 * 100 000), both queried with the distinct corpus's queries (half LoCoMo questions, half
 * memory-like texts of held-out turns); or `pairs` (two random LoCoMo turns each, queried with
 * LoCoMo questions: what issue 3 measured). Texts are embedded with the default local embedder. The ivfflat index gets `lists` from the rows (pgvector's rule); `--index ivfflat,hnsw`
 * also builds HNSW (m 16, ef_construction 64) in its place and measures it at each `--ef-search`.
 * Each query runs the statements search runs (libs/db retrieval.repository vectorSql: the
 * mind's 100 nearest, iterative scan `relaxed_order`), as the owner; recall@10 is against the
 * exact top 10 (ties count), overall and by kind of query.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase, vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { nearest, tiedRecall } from './ann-recall';
import { CORPORA, DistinctCorpus, readCorpusSource, repeatedTexts, type CorpusKind, type CorpusQuery } from './corpus';
import { locomoCorpus, percentile, prng, scratchUrls } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    minds: { type: 'string', default: '700,5000,20000,50000' },
    probes: { type: 'string', default: '1,5,10,20' },
    queries: { type: 'string', default: '200' },
    corpus: { type: 'string', default: 'distinct' },
    'corpus-seed': { type: 'string', default: '16001' },
    index: { type: 'string', default: 'ivfflat' },
    'ef-search': { type: 'string', default: '40,100,200' },
    db: { type: 'string' },
    json: { type: 'string' },
    /** Keep the scratch database of an earlier run with the same --rows and --minds. */
    reuse: { type: 'boolean', default: false },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});


function fail(message: string): never {
  process.stderr.write(`bench:ann: ${message}\n`);
  process.exit(1);
}


const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Inserts the minds' memories, interleaved (as real writes spread them), embedded locally. */
async function load(db: Client, tenant: string, minds: { id: string; size: number }[], nextText: () => string, random: () => number, embedder: HashingEmbedder): Promise<void> {
  const started = Date.now();
  const order = minds.flatMap((m) => Array.from({ length: m.size }, () => m.id));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as string, order[i] as string];
  }
  const BATCH = 1000;
  for (let at = 0; at < order.length; at += BATCH) {
    const ids: string[] = [];
    const mindIds: string[] = [];
    const contents: string[] = [];
    const vectors: string[] = [];
    for (let i = at; i < Math.min(order.length, at + BATCH); i++) {
      const text = nextText();
      ids.push(randomUUID());
      mindIds.push(order[i] as string);
      contents.push(text);
      vectors.push(vectorLiteral(embedder.embedOne(text)));
    }
    await db.query(
      `insert into memories (tenant_id, id, mind_id, category, key, content, source, confidence, content_hash, embedding, embedding_model, embedding_status)
       select $1, u.id, u.mind_id, 'note', 'm_' || replace(u.id::text, '-', ''), u.content, 'agent', 0.7, md5(u.content), u.embedding::halfvec, $6, 'ready'
       from unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[]) as u(id, mind_id, content, embedding)`,
      [tenant, ids, mindIds, contents, vectors, embedder.model],
    );
    process.stderr.write(`\rloaded ${Math.min(order.length, at + BATCH)}/${order.length}`);
  }
  process.stderr.write(`\rloaded ${order.length} memories in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

async function main(): Promise<void> {
  if (!args.file) fail('--file <locomo json> is required');
  const rows = Number(args.rows);
  const mindSizes = args.minds.split(',').map(Number);
  const probesList = args.probes.split(',').map(Number);
  if (!(rows > 0) || mindSizes.some((n) => !(n > 0)) || probesList.some((n) => !(n > 0))) fail('--rows, --minds and --probes take positive numbers');
  if (mindSizes.reduce((a, b) => a + b, 0) > rows) fail('--minds add up to more than --rows');

  if (!CORPORA.includes(args.corpus as CorpusKind) && args.corpus !== 'pairs') fail(`--corpus takes ${CORPORA.join(', ')} or pairs`);
  const indexes = args.index.split(',');
  if (indexes.some((i) => i !== 'ivfflat' && i !== 'hnsw')) fail('--index takes ivfflat, hnsw or both');
  const efList = args['ef-search'].split(',').map(Number);
  const DB = args.db ?? (args.corpus === 'pairs' ? 'engram_bench_ann' : `engram_bench_ann_${args.corpus}`);
  const random = prng(20261129);
  let queryList: CorpusQuery[];
  let nextText: () => string;
  let corpus: DistinctCorpus | undefined;
  if (args.corpus === 'pairs') {
    // Issue 3's corpus (two random turns a memory) and questions, drawn as it drew them.
    const { turns, queries: queryTexts } = await locomoCorpus(args.file, { count: Number(args.queries), random, speakers: false });
    queryList = queryTexts.map((text) => ({ text, kind: 'question' }));
    nextText = () => `${turns[Math.floor(random() * turns.length)]} ${turns[Math.floor(random() * turns.length)]}`;
  } else {
    // The texts bench:scale seeds (speakers and all), and for both the same queries: the distinct corpus's.
    corpus = new DistinctCorpus(await readCorpusSource(args.file), { seed: Number(args['corpus-seed']), speakers: true });
    queryList = corpus.queries(Number(args.queries));
    if (args.corpus === 'repeated') {
      const { turns } = await locomoCorpus(args.file, { count: 0, random, speakers: true });
      nextText = repeatedTexts(turns, random);
      corpus = undefined;
    } else {
      nextText = () => (corpus as DistinctCorpus).next();
    }
  }
  const adminUrl = new URL(args['database-url']);
  const url = new URL(scratchUrls(args['database-url'], DB).owner);
  const embedder = new HashingEmbedder();
  // pgvector's ivfflat sizing: rows / 1000 lists up to a million rows, sqrt(rows) beyond.
  const lists = Math.max(1, Math.round(rows <= 1_000_000 ? rows / 1000 : Math.sqrt(rows)));
  let db = new Client({ connectionString: url.toString() });
  let tenant = '';
  let minds: { id: string; size: number; measured: boolean }[] = [];
  let buildSeconds = NaN;
  /** Just loaded: the migrations' vector index was built on an empty table, so it is rebuilt whatever its kind. */
  let fresh = false;
  if (args.reuse) {
    try {
      await db.connect();
      const found = await db.query<{ tenant_id: string; mind_id: string; n: number }>('select tenant_id, mind_id, count(*)::int as n from memories group by 1, 2');
      const total = found.rows.reduce((a, r) => a + r.n, 0);
      const measured = mindSizes.map((size) => found.rows.find((r) => r.n === size));
      if (total === rows && measured.every(Boolean)) {
        tenant = found.rows[0]!.tenant_id;
        minds = measured.map((r) => ({ id: r!.mind_id, size: r!.n, measured: true }));
        process.stderr.write(`reusing ${DB}: ${total} memories\n`);
      } else {
        await db.end();
        db = new Client({ connectionString: url.toString() });
      }
    } catch {
      db = new Client({ connectionString: url.toString() });
    }
  }
  if (!tenant) {
    const admin = new Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`drop database if exists ${DB} with (force)`);
    await admin.query(`create database ${DB}`);
    await admin.end();
    const owner = openOwnerDatabase(url.toString());
    await migrateToLatest(owner);
    await owner.destroy();
    await db.connect();
    tenant = randomUUID();
    await db.query('insert into tenants (id, name) values ($1, $2)', [tenant, 'ann-bench']);
    // The measured minds first, then fillers of 10 000 up to --rows.
    minds = mindSizes.map((size) => ({ id: randomUUID(), size, measured: true }));
    for (let left = rows - mindSizes.reduce((a, b) => a + b, 0); left > 0; left -= 10_000) minds.push({ id: randomUUID(), size: Math.min(10_000, left), measured: false });
    for (const [i, m] of minds.entries()) await db.query('insert into minds (tenant_id, id, name) values ($1, $2, $3)', [tenant, m.id, `mind ${i}`]);
    await load(db, tenant, minds, nextText, random, embedder);
    fresh = true;
    if (corpus) process.stderr.write(`corpus distinct: ${JSON.stringify(corpus.stats())} (every text distinct in its embedder tokens)\n`);
  }

  const queries = queryList.map((q) => vectorLiteral(embedder.embedOne(q.text)));
  const nearestIn = (mind: string, v: string, probes: number | null, method: 'ivfflat' | 'hnsw' = 'ivfflat') => nearest(db, tenant, mind, v, probes, method);
  /** Makes `memories_embedding_idx` an index of `method`, unless it is one already. @returns the build's seconds (NaN when kept) */
  const ensureIndex = async (method: 'ivfflat' | 'hnsw'): Promise<number> => {
    const { rows: defs } = await db.query<{ def: string }>(`select indexdef as def from pg_indexes where indexname = 'memories_embedding_idx'`);
    if (!fresh && defs[0]?.def.includes(`USING ${method}`)) return NaN;
    fresh = false;
    const built = Date.now();
    await db.query(`set maintenance_work_mem = '1GB'`);
    await db.query('drop index if exists memories_embedding_idx');
    await db.query(
      method === 'ivfflat'
        ? `create index memories_embedding_idx on memories using ivfflat (embedding halfvec_cosine_ops) with (lists = ${lists})`
        : `create index memories_embedding_idx on memories using hnsw (embedding halfvec_cosine_ops) with (m = 16, ef_construction = 64)`,
    );
    await db.query('analyze memories');
    const seconds = (Date.now() - built) / 1000;
    process.stderr.write(`${method}${method === 'ivfflat' ? ` lists=${lists}` : ' m=16 ef_construction=64'} built in ${seconds.toFixed(1)} s\n`);
    return seconds;
  };
  const kinds = [...new Set(queryList.map((q) => q.kind))];

  const results: Record<string, unknown>[] = [];
  const builds: Record<string, number> = {};
  const line = (cells: (string | number)[]) => process.stdout.write(`${cells.map((c) => String(c).padStart(12)).join('')}\n`);
  const header = ['mind size', 'scan', 'probes/ef', 'recall@10', ...(kinds.length > 1 ? kinds.map((k) => `r@10 ${k.slice(0, 6)}`) : []), 'p50 ms', 'p95 ms'];
  const exact = new Map<string, number[][]>();
  for (const method of indexes as ('ivfflat' | 'hnsw')[]) {
    builds[method] = await ensureIndex(method);
    if (method === 'ivfflat' && !Number.isNaN(builds[method] as number)) buildSeconds = builds[method] as number;
    line(header);
    for (const mind of minds.filter((m) => m.measured)) {
      // Warm both paths once.
      await nearestIn(mind.id, queries[0] as string, null);
      await nearestIn(mind.id, queries[0] as string, method === 'ivfflat' ? (probesList[0] as number) : (efList[0] as number), method);
      if (!exact.has(mind.id)) {
        const truth: number[][] = [];
        const exactMs: number[] = [];
        for (const v of queries) {
          const r = await nearestIn(mind.id, v, null);
          truth.push(r.distances);
          exactMs.push(r.ms);
        }
        exact.set(mind.id, truth);
        line([mind.size, 'exact', '-', '1.000', ...(kinds.length > 1 ? kinds.map(() => '1.000') : []), percentile(exactMs, 50).toFixed(2), percentile(exactMs, 95).toFixed(2)]);
        results.push({ mind_size: mind.size, scan: 'exact', recall_at_10: 1, p50_ms: percentile(exactMs, 50), p95_ms: percentile(exactMs, 95) });
      }
      const truth = exact.get(mind.id) as number[][];
      for (const setting of method === 'ivfflat' ? probesList : efList) {
        const recalls: { kind: string; r: number }[] = [];
        const ms: number[] = [];
        for (const [i, v] of queries.entries()) {
          const r = await nearestIn(mind.id, v, setting, method);
          const t = truth[i] as number[];
          if (t.length > 0) recalls.push({ kind: (queryList[i] as CorpusQuery).kind, r: tiedRecall(r.distances, t[t.length - 1] as number, t.length) });
          ms.push(r.ms);
        }
        const byKind = Object.fromEntries(kinds.map((k) => [k, mean(recalls.filter((x) => x.kind === k).map((x) => x.r))]));
        const all = mean(recalls.map((x) => x.r));
        line([mind.size, method, setting, all.toFixed(3), ...(kinds.length > 1 ? kinds.map((k) => (byKind[k] as number).toFixed(3)) : []), percentile(ms, 50).toFixed(2), percentile(ms, 95).toFixed(2)]);
        results.push({ mind_size: mind.size, scan: method, [method === 'ivfflat' ? 'probes' : 'ef_search']: setting, recall_at_10: all, recall_by_kind: byKind, p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95) });
      }
    }
  }
  await db.end();
  const report = { corpus: args.corpus, corpus_stats: corpus?.stats(), rows, lists, build_seconds: buildSeconds, index_build_seconds: builds, queries: queries.length, embedder: embedder.model, results };
  if (args.json) await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.stack ?? error.message : String(error)));

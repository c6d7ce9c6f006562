/**
 * ivfflat against exact vector search, by mind size: recall@10 of the index against the exact
 * answer, and the latency of each, so that `retrieval.exact_scan_below` and `retrieval.probes`
 * are chosen by measurement (issue 3: "ANN recall@10 against exact search ≥ 0.95").
 *
 *   npm run bench:ann -- --file ../shared/bench-data/locomo-dev.json [--rows 100000]
 *     [--minds 700,5000,20000,50000] [--probes 1,5,10,20] [--queries 200] [--json out.json]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--reuse]
 *
 * Builds a scratch database `engram_bench_ann` (dropped and re-created) on that server, with
 * `--rows` memories in one tenant: one mind of each `--minds` size and the rest in minds of
 * 10 000. Texts are pairs of LoCoMo turns (deterministic), embedded with the default local
 * embedder; queries are LoCoMo questions. The ivfflat index gets `lists` from the rows
 * (ivfflatLists). Each query runs the statements search runs (libs/db retrieval.repository
 * vectorSql: the mind's 100 nearest, `ivfflat.iterative_scan = relaxed_order`), as the owner.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { migrateToLatest, openOwnerDatabase, vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { ivfflatLists } from '@engram/memory';
import { nearest, tiedRecall } from './ann-recall';
import { locomoCorpus, percentile, prng, scratchUrls } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    minds: { type: 'string', default: '700,5000,20000,50000' },
    probes: { type: 'string', default: '1,5,10,20' },
    queries: { type: 'string', default: '200' },
    json: { type: 'string' },
    /** Keep the scratch database of an earlier run with the same --rows and --minds. */
    reuse: { type: 'boolean', default: false },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const DB = 'engram_bench_ann';

function fail(message: string): never {
  process.stderr.write(`bench:ann: ${message}\n`);
  process.exit(1);
}


const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Inserts the minds' memories, interleaved (as real writes spread them), embedded locally. */
async function load(db: Client, tenant: string, minds: { id: string; size: number }[], turns: string[], random: () => number, embedder: HashingEmbedder): Promise<void> {
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
      const text = `${turns[Math.floor(random() * turns.length)]} ${turns[Math.floor(random() * turns.length)]}`;
      ids.push(randomUUID());
      mindIds.push(order[i] as string);
      contents.push(text);
      vectors.push(vectorLiteral(embedder.embedOne(text)));
    }
    await db.query(
      `insert into memories (tenant_id, id, mind_id, category, key, content, source, confidence, content_hash, embedding, embedding_model, embedding_status)
       select $1, u.id, u.mind_id, 'note', 'm_' || replace(u.id::text, '-', ''), u.content, 'agent', 0.7, md5(u.content), u.embedding::vector, $6, 'ready'
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

  const random = prng(20261129);
  const { turns, queries: queryTexts } = await locomoCorpus(args.file, { count: Number(args.queries), random, speakers: false });
  const adminUrl = new URL(args['database-url']);
  const url = new URL(scratchUrls(args['database-url'], DB).owner);
  const embedder = new HashingEmbedder();
  const lists = ivfflatLists(rows);
  let db = new Client({ connectionString: url.toString() });
  let tenant = '';
  let minds: { id: string; size: number; measured: boolean }[] = [];
  let buildSeconds = NaN;
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
    await load(db, tenant, minds, turns, random, embedder);
    const built = Date.now();
    await db.query(`set maintenance_work_mem = '1GB'`);
    await db.query('drop index memories_embedding_idx');
    await db.query(`create index memories_embedding_idx on memories using ivfflat (embedding vector_cosine_ops) with (lists = ${lists})`);
    await db.query('analyze memories');
    buildSeconds = (Date.now() - built) / 1000;
    process.stderr.write(`ivfflat lists=${lists} built in ${buildSeconds.toFixed(1)} s\n`);
  }

  const queries = queryTexts.map((q) => vectorLiteral(embedder.embedOne(q)));
  const nearestIn = (mind: string, v: string, probes: number | null) => nearest(db, tenant, mind, v, probes);

  const results: Record<string, unknown>[] = [];
  const line = (cells: (string | number)[]) => process.stdout.write(`${cells.map((c) => String(c).padStart(12)).join('')}\n`);
  line(['mind size', 'scan', 'probes', 'recall@10', 'p50 ms', 'p95 ms']);
  for (const mind of minds.filter((m) => m.measured)) {
    // Warm both paths once.
    await nearestIn(mind.id, queries[0] as string, null);
    await nearestIn(mind.id, queries[0] as string, probesList[0] as number);
    const exact: number[][] = [];
    const exactMs: number[] = [];
    for (const v of queries) {
      const r = await nearestIn(mind.id, v, null);
      exact.push(r.distances);
      exactMs.push(r.ms);
    }
    line([mind.size, 'exact', '-', '1.000', percentile(exactMs, 50).toFixed(2), percentile(exactMs, 95).toFixed(2)]);
    results.push({ mind_size: mind.size, scan: 'exact', recall_at_10: 1, p50_ms: percentile(exactMs, 50), p95_ms: percentile(exactMs, 95) });
    for (const probes of probesList) {
      const recalls: number[] = [];
      const ms: number[] = [];
      for (const [i, v] of queries.entries()) {
        const r = await nearestIn(mind.id, v, probes);
        const truth = exact[i] as number[];
        if (truth.length > 0) recalls.push(tiedRecall(r.distances, truth[truth.length - 1] as number, truth.length));
        ms.push(r.ms);
      }
      line([mind.size, 'ivfflat', probes, mean(recalls).toFixed(3), percentile(ms, 50).toFixed(2), percentile(ms, 95).toFixed(2)]);
      results.push({ mind_size: mind.size, scan: 'ivfflat', probes, recall_at_10: mean(recalls), p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95) });
    }
  }
  await db.end();
  const report = { rows, lists, build_seconds: buildSeconds, queries: queries.length, embedder: embedder.model, results };
  if (args.json) await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.stack ?? error.message : String(error)));

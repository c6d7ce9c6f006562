/**
 * Tiering's effect (issue "background work" §3; docs/design.md §5 tiers): bytes per tier and hybrid
 * search latency for a mind of `--rows` memories, all stored in full (as if never tiered), then
 * after the tiering sweep has compacted cold and archived memories and taken archived ones out
 * of the vector index.
 *
 *   npm run bench:tiers -- --file ../shared/bench-data/locomo-dev.json [--rows 100000]
 *     [--queries 200] [--json out.json] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * Builds a scratch database `engram_bench_tiers` (dropped and re-created) on that server and
 * runs the API in this process against it (as engram_app, row-level security on). One tenant,
 * one mind of `--rows` memories: texts are 1-4 consecutive LoCoMo turns (deterministic),
 * embedded with the default local embedder; ages spread over 2 years and access counts drawn so
 * that about a tenth is hot, a fifth warm, a third cold and the rest archive. Queries are LoCoMo
 * questions, run through `GET /v1/memory/search` (limit 10). The mind is large: its memories are
 * put in the HNSW index (`vector_indexed`) and the index rebuilt before each measurement.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import request from 'supertest';
import { NO_SCHEDULES, loadConfig } from '@engram/config';
import { DEFAULT_LIFECYCLE, contentHash } from '@engram/memory';
import { sql } from 'kysely';
import { migrateToLatest, openOwnerDatabase, tierSql, vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { failure, locomoCorpus, percentile, prng, scratchUrls } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    json: { type: 'string' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const DB = 'engram_bench_tiers';
const DIST = `${__dirname}/../dist`;
const DAY = 86_400_000;

const fail: (message: string) => never = failure('bench:tiers');



interface TierBytes {
  tier: string;
  memories: number;
  /** Mean bytes of the whole row as stored (pg_column_size of the row, after TOAST compression). */
  row_bytes: number;
  /** Mean bytes of the text kept: content (full or gist) plus the compressed full text. */
  text_bytes: number;
  /** Mean bytes of the vector (0 when out of the vector index). */
  vector_bytes: number;
  in_vector_index: number;
}

async function bytesPerTier(db: Client): Promise<TierBytes[]> {
  const { rows } = await db.query<TierBytes>(`
    select tier, count(*)::int as memories,
           round(avg(pg_column_size(m.*)))::int as row_bytes,
           round(avg(pg_column_size(content) + coalesce(pg_column_size(content_z), 0)))::int as text_bytes,
           round(avg(coalesce(pg_column_size(embedding), 0)))::int as vector_bytes,
           count(embedding)::int as in_vector_index
    from memories m group by tier order by array_position(array['hot', 'warm', 'cold', 'archive'], tier)`);
  return rows;
}

async function sizes(db: Client): Promise<{ table_mb: number; vector_index_mb: number; text_index_mb: number }> {
  // Rewrites the table and its indexes: sizes without the dead rows the updates left behind.
  await db.query('vacuum (full, analyze) memories');
  const { rows } = await db.query(`
    select round(pg_table_size('memories') / 1048576.0, 1)::float8 as table_mb,
           round(pg_relation_size('memories_embedding_idx') / 1048576.0, 1)::float8 as vector_index_mb,
           round(pg_relation_size('memories_search_idx') / 1048576.0, 1)::float8 as text_index_mb`);
  return rows[0];
}

async function main(): Promise<void> {
  if (!args.file) fail('--file <locomo json> is required');
  const total = Number(args.rows);
  if (!(total > 0)) fail('--rows takes a positive number');
  const random = prng(20261130);
  const { turns, queries } = await locomoCorpus(args.file, { count: Number(args.queries), random, speakers: true });
  const urls = scratchUrls(args['database-url'], DB);
  const admin = new Client({ connectionString: args['database-url'] });
  await admin.connect();
  await admin.query(`drop database if exists ${DB} with (force)`);
  await admin.query(`create database ${DB}`);
  await admin.end();
  const owner = openOwnerDatabase(urls.owner);
  await migrateToLatest(owner);

  const config = loadConfig({
    DATABASE_URL: urls.app,
    JWT_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
    LOG_LEVEL: 'silent',
    ...NO_SCHEDULES,
  });
  // The API as built by `npm run build` (swc keeps the decorator metadata Nest injects by; tsx does not).
  const { createApp } = (await import(`${DIST}/apps/api/src/create-app.js`)) as typeof import('../apps/api/src/create-app');
  const { TieringJob } = (await import(`${DIST}/libs/jobs/src/index.js`)) as typeof import('@engram/jobs');
  const app = await createApp(config);
  await app.init();
  const http = () => request(app.getHttpServer());
  const reg = await http().post('/v1/auth/register').send({ email: 'tiers@bench.test', password: 'correct horse battery', tenant_name: 'tiers bench' });
  const token = reg.body.token as string;
  const tenantId = reg.body.tenant.id as string;
  const mind = await http().post('/v1/minds').set('Authorization', `Bearer ${token}`).send({ name: 'tiers' });
  const mindId = mind.body.id as string;
  const auth = { Authorization: `Bearer ${token}`, 'X-Mind-Id': mindId };

  const db = new Client({ connectionString: urls.owner });
  await db.connect();
  const embedder = new HashingEmbedder();
  const now = Date.now();
  const started = Date.now();
  const BATCH = 1000;
  for (let at = 0; at < total; at += BATCH) {
    const cols: Record<string, unknown[]> = { id: [], content: [], hash: [], vector: [], born: [], access: [] };
    for (let i = at; i < Math.min(total, at + BATCH); i++) {
      const start = Math.floor(random() * turns.length);
      const text = turns.slice(start, start + 1 + Math.floor(random() * 4)).join('\n');
      const ageDays = 2 + random() * 728;
      // Uses per day drawn so the tiers come out about 10 % hot, 20 % warm, 30 % cold, 40 % archive.
      const u = random();
      const perDay = u < 0.1 ? 12 + random() * 10 : u < 0.3 ? 1.5 + random() * 8 : u < 0.6 ? 0.15 + random() * 0.8 : random() * 0.09;
      cols.id!.push(randomUUID());
      cols.content!.push(text);
      cols.hash!.push(contentHash(text));
      cols.vector!.push(vectorLiteral(embedder.embedOne(text)));
      cols.born!.push(new Date(now - ageDays * DAY).toISOString());
      cols.access!.push(Math.floor(perDay * ageDays));
    }
    await db.query(
      `insert into memories (tenant_id, id, mind_id, category, key, content, source, confidence, content_hash, embedding, embedding_model, embedding_status,
                             occurred_at, created_at, access_count, importance_score, current_retention, retention_at, strength_days)
       select $1, u.id, $2, 'note', 'm_' || replace(u.id::text, '-', ''), u.content, 'agent', 0.7, u.hash, u.vector::halfvec, $3, 'ready',
              u.born, u.born, u.access, 0.5, 0.5, u.born, 7
       from unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::int[]) as u(id, content, hash, vector, born, access)`,
      [tenantId, mindId, embedder.model, cols.id, cols.content, cols.hash, cols.vector, cols.born, cols.access],
    );
    process.stderr.write(`\rloaded ${Math.min(total, at + BATCH)}/${total}`);
  }
  process.stderr.write(`\rloaded ${total} memories in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

  // One large mind: its memories in the HNSW index (vector_indexed), as the migration and the
  // writer leave them; an archived memory leaves it with its vector.
  const reindex = async () => {
    await db.query('update memories set vector_indexed = true where not vector_indexed');
    await db.query('reindex index memories_embedding_idx');
    const { rows } = await db.query<{ n: number }>('select count(embedding)::int as n from memories where vector_indexed');
    return rows[0]!.n;
  };
  const measure = async () => {
    const ms: number[] = [];
    for (const [i, q] of queries.entries()) {
      const t0 = performance.now();
      await http().get('/v1/memory/search').query({ q, limit: 10 }).set(auth).expect(200);
      if (i >= 10) ms.push(performance.now() - t0); // the first few warm the caches
    }
    return { p50_ms: +percentile(ms, 50).toFixed(1), p95_ms: +percentile(ms, 95).toFixed(1) };
  };

  // Before: the tiers the sweep computes, every memory still in full and in the vector index
  // (what tiering did before it had an effect on storage).
  const at = new Date(now);
  await sql`update memories set tier = ${tierSql(DEFAULT_LIFECYCLE, at)}`.execute(owner);
  const before = { indexed: await reindex(), bytes: await bytesPerTier(db), sizes: await sizes(db), search: await measure() };

  const t0 = Date.now();
  const sweep = await app.get(TieringJob).run(tenantId, at);
  const sweepSeconds = (Date.now() - t0) / 1000;
  const after = { indexed: await reindex(), bytes: await bytesPerTier(db), sizes: await sizes(db), search: await measure() };

  const print = (label: string, r: typeof before) => {
    process.stdout.write(`\n${label}: table ${r.sizes.table_mb} MB, vector index ${r.sizes.vector_index_mb} MB (${r.indexed} memories in it), text index ${r.sizes.text_index_mb} MB; search p50 ${r.search.p50_ms} ms, p95 ${r.search.p95_ms} ms\n`);
    process.stdout.write('  tier      memories  row B  text B  vector B  in vector index\n');
    for (const b of r.bytes) {
      process.stdout.write(`  ${b.tier.padEnd(8)} ${String(b.memories).padStart(9)} ${String(b.row_bytes).padStart(6)} ${String(b.text_bytes).padStart(7)} ${String(b.vector_bytes).padStart(9)} ${String(b.in_vector_index).padStart(16)}\n`);
    }
  };
  process.stdout.write(`${total} memories in one mind, ${queries.length} searches each; sweep ${JSON.stringify(sweep)} in ${sweepSeconds.toFixed(1)} s\n`);
  print('before (tiers without a storage effect)', before);
  print('after the tiering sweep', after);
  if (args.json) await writeFile(args.json, JSON.stringify({ rows: total, sweep, sweep_seconds: sweepSeconds, before, after }, null, 2));
  await db.end();
  await owner.destroy();
  await app.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

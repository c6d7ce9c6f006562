/**
 * How often the HNSW graph leaves a memory unreachable (docs/design.md §6.1): the shape of
 * test/retrieval.test.ts's large mind, 350 notes of one kind ("Note b-i about the harbour, topic
 * t") and one memory unlike them all, embedded with the default local embedder and inserted in a
 * random order into a fresh HNSW index (halfvec_cosine_ops, pgvector's defaults m 16,
 * ef_construction 64), `--trials` times. Each index is then scanned whole (ef_search 1000 above
 * its size, iterative scan `relaxed_order`, as search runs it) and every row it does not return
 * is unreachable. Prints the unrelated memory's count and the notes' count.
 *
 *   npx tsx bench/hnsw-reachability.ts [--trials 100]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * Uses a table of its own in that database (`engram_bench_hnsw_reachability`, dropped at the end).
 */
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';

const { values: args } = parseArgs({
  options: {
    trials: { type: 'string', default: '100' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

async function main(): Promise<void> {
  const texts: string[] = [];
  for (let b = 0; b < 7; b++) for (let i = 0; i < 50; i++) texts.push(`Note ${b}-${i} about the harbour, topic ${(i * 7919) % 101}`);
  texts.push('The lighthouse keeper on Skellig Michael is called Orla');
  const outlier = texts.length - 1;
  const vectors = (await new HashingEmbedder().embed(texts)).map((v) => vectorLiteral(v));
  const trials = Number(args.trials);
  const c = new Client({ connectionString: args['database-url'] });
  await c.connect();
  const table = 'engram_bench_hnsw_reachability';
  let outlierLost = 0;
  let notesLost = 0;
  try {
    await c.query("set hnsw.ef_search = 1000; set hnsw.iterative_scan = relaxed_order; set enable_seqscan = off; set enable_sort = off");
    for (let t = 0; t < trials; t++) {
      await c.query(`drop table if exists ${table}; create table ${table} (id int primary key, embedding halfvec(768))`);
      await c.query(`create index on ${table} using hnsw (embedding halfvec_cosine_ops)`);
      const order = texts.map((_, k) => ({ k, r: Math.random() })).sort((x, y) => x.r - y.r);
      for (const { k } of order) await c.query(`insert into ${table} values ($1, $2::halfvec)`, [k, vectors[k]]);
      const { rows } = await c.query<{ id: number }>(`select id from ${table} order by embedding <=> $1::halfvec limit ${texts.length + 10}`, [vectors[0]]);
      const reached = new Set(rows.map((r) => r.id));
      if (!reached.has(outlier)) outlierLost++;
      notesLost += texts.length - 1 - rows.filter((r) => r.id !== outlier).length;
    }
  } finally {
    await c.query(`drop table if exists ${table}`);
    await c.end();
  }
  console.log(`indexes built: ${trials}`);
  console.log(`the unrelated memory unreachable in ${outlierLost} of ${trials}`);
  console.log(`notes unreachable: ${notesLost} of ${trials * (texts.length - 1)}`);
}

void main();

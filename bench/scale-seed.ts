/**
 * bench:scale's data: the scratch database, and memories inserted straight into it as the
 * owner, with the indexes built after the rows are in.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { rebuildVectorIndex, vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { contentHash, ivfflatLists } from '@engram/memory';
import { log, type Tenant } from './scale-api';
import { failure } from './support';

const DAY = 86_400_000;
const SESSION = 20;
export const TAGS = ['work', 'family', 'travel', 'health', 'hobby', 'friends', 'plans', 'feelings'];
export const CATEGORIES = ['note', 'preference', 'fact', 'context'];

const fail: (message: string) => never = failure('bench:scale');

/**
 * Makes scratch database `dbName` on the server of `adminUrl`, dropping it first, unless `reuse`
 * finds it holding `memories` seeded memories (`ownerUrl` connects to it).
 * @returns whether it was found seeded
 */
export async function scratchDatabase(adminUrl: string, ownerUrl: string, dbName: string, memories: number, reuse: boolean): Promise<boolean> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  let seeded = false;
  if (reuse) {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
    if (exists.rowCount) {
      const probe = new Client({ connectionString: ownerUrl });
      await probe.connect();
      const { rows } = await probe.query<{ n: number }>(`select count(*)::int as n from memories where key like 't%'`);
      await probe.end();
      seeded = rows[0]!.n === memories;
    }
    log(seeded ? `reusing ${dbName}` : `${dbName} is not seeded with this shape: seeding`);
  }
  if (!seeded) {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.query(`create database ${dbName}`);
  }
  await admin.end();
  return seeded;
}

/**
 * Seeds `perTenant` memories into each tenant's mind of the migrated database `dbName`, then
 * rebuilds its secondary indexes, the vector index and the statistics.
 * @returns seconds per step: load, secondary indexes, vector index, vacuum analyze
 */
export async function seedMemories(
  db: Client,
  o: { ownerUrl: string; dbName: string; tenants: Tenant[]; perTenant: number; nextText: () => string; random: () => number },
): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  // Secondary indexes are built once the rows are in (a bulk build is many times faster than
  // upkeep row by row); the primary key, the key's uniqueness and the vector index stay.
  const { rows: indexes } = await db.query<{ name: string; def: string }>(`
    select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = 'memories'::regclass and not x.indisunique and i.relname <> 'memories_embedding_idx'`);
  for (const i of indexes) await db.query(`drop index ${i.name}`);
  seconds.load_seconds = await load(o.ownerUrl, o.tenants, o.perTenant, o.nextText, o.random);
  let t0 = Date.now();
  await db.query(`set maintenance_work_mem = '1GB'`);
  for (const i of indexes) await db.query(i.def);
  seconds.secondary_index_seconds = (Date.now() - t0) / 1000;
  log(`${indexes.length} secondary indexes rebuilt in ${seconds.secondary_index_seconds.toFixed(0)} s`);
  // ivfflat's lists are centred on the data it is built on: rebuilt now that the rows are in.
  t0 = Date.now();
  const rows = o.tenants.length * o.perTenant;
  // What `npm run db:reindex` does (lists from the rows, recorded in the index's comment), with the memory a build of a million wants.
  await db.query(`alter database ${o.dbName} set maintenance_work_mem = '2GB'`);
  if (!(await rebuildVectorIndex({ kind: 'postgres', url: o.ownerUrl }, ivfflatLists(rows), rows, new Date()))) fail('the vector index is being rebuilt by someone else');
  await db.query(`alter database ${o.dbName} reset maintenance_work_mem`);
  seconds.index_seconds = (Date.now() - t0) / 1000;
  t0 = Date.now();
  await db.query('vacuum analyze memories');
  seconds.analyze_seconds = (Date.now() - t0) / 1000;
  log(`vector index ${seconds.index_seconds.toFixed(0)} s, vacuum analyze ${seconds.analyze_seconds.toFixed(0)} s`);
  return seconds;
}

/**
 * Inserts `perTenant` memories into each tenant's mind, batch by batch, the next batch embedded
 * while the last one is written. Keys are `t<tenant>_m<n>`, so an answer shows whose memory it is.
 * Texts come from `nextText` (bench/corpus.ts), the other attributes from `random`.
 */
async function load(url: string, tenants: Tenant[], perTenant: number, nextText: () => string, random: () => number): Promise<number> {
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
      const text = nextText();
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

/**
 * bench:scale's data: the scratch database, and memories inserted straight into it as the
 * owner, with the indexes built after the rows are in.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { vectorLiteral } from '@engram/db';
import { HashingEmbedder } from '@engram/embeddings';
import { contentHash } from '@engram/memory';
import { log, type Tenant } from './scale-api';
import { failure } from './support';

const DAY = 86_400_000;
const SESSION = 20;
export const TAGS = ['work', 'family', 'travel', 'health', 'hobby', 'friends', 'plans', 'feelings'];
export const CATEGORIES = ['note', 'preference', 'fact', 'context'];

const fail: (message: string) => never = failure('bench:scale');

/**
 * Makes scratch database `dbName` on the server of `adminUrl`, dropping it first, unless `reuse`
 * finds it holding `memories` seeded memories (`ownerUrl` connects to it). With `citus`,
 * `adminUrl` names a Citus coordinator's database that knows its workers (`pg_dist_node`, as
 * scripts/citus-cluster.sh makes it): the database is made on the coordinator and on every worker,
 * each with the citus and vector extensions, and the workers are added to it (every database of a
 * Citus cluster has its own node list), so that the migrations distribute its tables by tenant.
 * @returns whether it was found seeded
 */
export async function scratchDatabase(adminUrl: string, ownerUrl: string, dbName: string, memories: number, reuse: boolean, citus = false): Promise<boolean> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  const nodes = citus ? await citusNodes(admin) : undefined;
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
    if (nodes) {
      // Each worker's copy first made, with the extensions (a worker refuses DDL once it is in the cluster).
      for (const w of nodes.workers) {
        await onNode(adminUrl, w, undefined, async (c) => {
          await c.query(`drop database if exists ${dbName} with (force)`);
          await c.query(`create database ${dbName}`);
        });
        await onNode(adminUrl, w, dbName, (c) => c.query('create extension citus; create extension vector'));
      }
    }
    await admin.query(`create database ${dbName}`);
    if (nodes) {
      await onNode(adminUrl, nodes.coordinator, dbName, async (c) => {
        await c.query('create extension citus; create extension vector');
        await c.query('select citus_set_coordinator_host($1, $2)', [nodes.coordinator.host, nodes.coordinator.port]);
        for (const w of nodes.workers) await c.query('select citus_add_node($1, $2)', [w.host, w.port]);
      });
      log(`${dbName}: a Citus database on the coordinator and ${nodes.workers.length} workers (${nodes.workers.map((w) => `${w.host}:${w.port}`).join(', ')})`);
    }
  }
  await admin.end();
  return seeded;
}

interface CitusNode {
  host: string;
  port: number;
}

/** The coordinator and the active primary workers of the Citus database `admin` is connected to. */
async function citusNodes(admin: Client): Promise<{ coordinator: CitusNode; workers: CitusNode[] }> {
  const { rows: ext } = await admin.query(`select 1 from pg_extension where extname = 'citus'`);
  if (!ext.length) fail('--citus: the --database-url database has no citus extension (a Citus coordinator\'s, e.g. scripts/citus-cluster.sh url)');
  const { rows } = await admin.query<{ host: string; port: number; group: number }>(
    `select nodename as host, nodeport as port, groupid as "group" from pg_dist_node where noderole = 'primary' and isactive order by groupid`);
  const coordinator = rows.find((r) => r.group === 0);
  const workers = rows.filter((r) => r.group !== 0).map((r) => ({ host: r.host, port: r.port }));
  if (!coordinator) fail('--citus: the coordinator is not in pg_dist_node (citus_set_coordinator_host)');
  if (workers.length === 0) fail('--citus: the coordinator has no workers (citus_add_node)');
  return { coordinator: { host: coordinator.host, port: coordinator.port }, workers };
}

/** Runs `fn` connected to `node` as `adminUrl`'s user, in database `db` (default: `adminUrl`'s). */
async function onNode(adminUrl: string, node: CitusNode, db: string | undefined, fn: (c: Client) => Promise<unknown>): Promise<void> {
  const url = new URL(adminUrl);
  url.hostname = node.host;
  url.port = String(node.port);
  if (db) url.pathname = `/${db}`;
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Bytes of the memories table and of its vector and text indexes: on Citus, summed over the
 * workers' shards (the coordinator's table is an empty shell).
 */
export async function memorySizes(db: Client, citus: boolean): Promise<{ table_bytes: number; vector_index_bytes: number; text_index_bytes: number; memories: number }> {
  // PostgreSQL's bigints arrive as strings; the printing divides them as numbers.
  const onShards = (index: string) =>
    `(select coalesce(sum(result::bigint), 0) from run_command_on_workers($$select coalesce(sum(pg_relation_size(oid)), 0) from pg_class where relkind = 'i' and relname ~ '^${index}_[0-9]+$'$$))`;
  const { rows } = await db.query(citus
    ? `select citus_table_size('memories') as table_bytes, ${onShards('memories_embedding_idx')} as vector_index_bytes,
              ${onShards('memories_search_idx')} as text_index_bytes, (select count(*)::int from memories) as memories`
    : `select pg_table_size('memories') as table_bytes, pg_relation_size('memories_embedding_idx') as vector_index_bytes,
              pg_relation_size('memories_search_idx') as text_index_bytes, (select count(*)::int from memories) as memories`);
  return rows[0];
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
  // upkeep row by row), the HNSW index included; the primary key and the key's uniqueness stay.
  const { rows: indexes } = await db.query<{ name: string; def: string }>(`
    select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = 'memories'::regclass and not x.indisunique`);
  for (const i of indexes) await db.query(`drop index ${i.name}`);
  seconds.load_seconds = await load(o.ownerUrl, o.tenants, o.perTenant, o.nextText, o.random);
  // The minds of at least LARGE_MIND_MEMORIES (10 000) memories go into the HNSW index, as
  // the migration and the writer leave them.
  let t0 = Date.now();
  await db.query(`update memories set vector_indexed = true where (tenant_id, mind_id) in (select tenant_id, mind_id from memories group by 1, 2 having count(*) >= 10000)`);
  await db.query(`set maintenance_work_mem = '2GB'`);
  for (const i of indexes.filter((x) => x.name !== 'memories_embedding_idx')) await db.query(i.def);
  seconds.secondary_index_seconds = (Date.now() - t0) / 1000;
  log(`${indexes.length - 1} secondary indexes rebuilt in ${seconds.secondary_index_seconds.toFixed(0)} s`);
  t0 = Date.now();
  for (const i of indexes.filter((x) => x.name === 'memories_embedding_idx')) await db.query(i.def);
  await db.query('reset maintenance_work_mem');
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
       select u.tenant, u.id, u.mind, u.category, u.key, u.content, 'agent', 0.7, u.hash, u.vector::halfvec, $1, 'ready',
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

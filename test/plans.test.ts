import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { Pool } from 'pg';
import { systemClock, type AppConfig } from '@engram/config';
import { AssociationsRepository, MemoriesRepository, MemoryAccessesRepository, PREPARED_OPTIONS, PreparingClient, MemorySweepsRepository, MindStatsRepository, RetrievalRepository, TenantDb, TenantsRepository, WebhooksRepository, vectorLiteral, type DB, type MatchMode, type MemoryFilter, type TenantTx, type VectorScan } from '@engram/db';
import type { RequestEmbedder } from '@engram/embeddings';
import { AssociationJob, ForgettingJob, TieringJob } from '@engram/jobs';
import { DEFAULT_LIFECYCLE, type LifecycleConfig } from '@engram/memory';
import { AccessRecorder, HybridSearch, LifecycleSettings, accessedRow } from '@engram/services';
import { fixtureWriter, seedMemories, type MemorySeed } from './support/memory-fixtures';
import { createTestDatabase, ownerQuery, type TestDatabase } from './support/test-db';

// Plan checks (issue 7 §4): the statements search and the sweeps run, with the planner's
// statistics taken (ANALYZE) on a few thousand memories, use the indexes meant to serve them
// and never read the memories table from end to end. Plans are the real ones: auto_explain
// (loaded in this test's session, nested statements included) reports each statement the code
// runs, as the app role, back to this client as a notice.

const TENANT = '0190a000-0000-7000-8000-0000000a1a70';
const OTHER = '0190a000-0000-7000-8000-0000000b1a70';
const MIND = '0190a000-0000-7000-8000-0000000a1a71';
const OTHER_MIND = '0190a000-0000-7000-8000-0000000b1a71';
const ROWS = 4000;

let db: TestDatabase;
let kysely: Kysely<DB>;
const plans: string[] = [];

/** Plans reported while `work` ran. */
async function planned(work: () => Promise<unknown>): Promise<string[]> {
  plans.length = 0;
  await work();
  return [...plans];
}

beforeAll(async () => {
  db = await createTestDatabase();
  const owner = ownerQuery(db);
  await owner(`insert into tenants (id, name) values ($1, 'plans'), ($2, 'other')`, [TENANT, OTHER]);
  await owner(`insert into minds (tenant_id, id, name) values ($1, $2, 'plans')`, [TENANT, MIND]);
  // Two tenants, so that a plan reading the whole table would show; four common words and a rare
  // one (zeppelin, in 1 of 1000); vectors of 768 random numbers.
  await owner(`insert into minds (tenant_id, id, name) values ($1, $2, 'other')`, [OTHER, OTHER_MIND]);
  const app = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: db.appUrl, max: 1 }) }) });
  const fixtures = fixtureWriter(app);
  const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
  for (const [tenant, mind, rows] of [[TENANT, MIND, ROWS], [OTHER, OTHER_MIND, ROWS / 2]] as const) {
    const seeds: MemorySeed[] = Array.from({ length: rows }, (_, k) => {
      const i = k + 1;
      return {
        key: `k_${i}`,
        content: `memory ${i} about ${['tea', 'ships', 'maps', 'owls'][i % 4]}${i % 1000 === 7 ? ' and a zeppelin' : ''}`,
        storedAt: tenDaysAgo,
        state: {
          embedding: vectorLiteral(Array.from({ length: 768 }, () => Math.random())),
          embedding_status: 'ready',
          strength_days: 3,
          temporal_context: `s${Math.floor(i / 20)}`,
          temporal_position: i % 20,
        },
      };
    });
    await seedMemories(fixtures, { tenantId: tenant, mindId: mind }, seeds);
  }
  // Many small minds beside the big one: the planner, taking tenant_id and mind_id as
  // independent, would expect a handful of rows in the big mind.
  const small = await owner<{ id: string }>(`insert into minds (tenant_id, id, name) select $1, gen_random_uuid(), 'small ' || g from generate_series(1, 300) g returning id`, [OTHER]);
  for (const { id } of small) {
    await seedMemories(fixtures, { tenantId: OTHER, mindId: id }, Array.from({ length: 5 }, (_, g) => ({ key: `small_${g + 1}`, content: 'a small memory' })));
  }
  await app.destroy();
  // The big mind is large (its memories in the HNSW index), the others are not, as the migration
  // and the writer leave them (libs/services VectorIndexing).
  await owner(`update memories set vector_indexed = true where mind_id = $1`, [MIND]);
  await owner(`reindex index memories_embedding_idx`);
  await owner('analyze memories');

  // Prepared statements as the service runs them (libs/db prepared.ts): custom plans.
  const pool = new Pool({ connectionString: db.ownerUrl, max: 1, options: PREPARED_OPTIONS, Client: PreparingClient });
  pool.on('connect', (client) => client.on('notice', (n) => {
    if (n.message?.includes('plan:')) plans.push(n.message);
  }));
  kysely = new Kysely<DB>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (c) => {
        for (const s of [
          `load 'auto_explain'`,
          'set auto_explain.log_min_duration = 0',
          'set auto_explain.log_nested_statements = on',
          'set client_min_messages = log',
          'set jit = off',
          'set role engram_app',
        ]) await c.executeQuery(CompiledQuery.raw(s));
      },
    }),
  });
}, 120_000);

afterAll(async () => {
  await kysely?.destroy();
  await db?.drop();
});

/** These searches record no accesses (`access: false`): a recorder that writes each read's accesses in its transaction. */
const accessRecorder = () => new AccessRecorder({ ACCESS_FLUSH_MS: 0 } as AppConfig, new TenantDb(kysely), new MemoriesRepository(), new MemoryAccessesRepository(), {} as LifecycleSettings);

const seqScan = (plan: string) => /Seq Scan on (memories|memory_associations)\b/.test(plan);

describe('plans of search', () => {
  const retrieval = new RetrievalRepository();
  const tenantDb = () => new TenantDb(kysely);
  const filter = () => ({ activeAt: new Date() });
  const vector = Array.from({ length: 768 }, (_, i) => Math.sin(i));
  // The search the API runs (text statistics included), with the scan forced: at 4000 rows the
  // service would scan vectors exactly.
  const hybrid = new HybridSearch(retrieval, new MindStatsRepository(), new MemoriesRepository(), {} as RequestEmbedder, accessRecorder(), systemClock);
  const configFor = (scan: VectorScan): LifecycleConfig => ({
    ...DEFAULT_LIFECYCLE,
    retrieval: { ...DEFAULT_LIFECYCLE.retrieval, exact_scan_below: scan.exact ? 100_000_000 : 0, ef_search: scan.exact ? 100 : scan.efSearch },
  });
  const search = (tx: TenantTx, q: string, mode: MatchMode, vec: number[] | null, f: MemoryFilter, limit: number, scan: VectorScan) =>
    hybrid.search(tx, MIND, { q, mode, vector: vec, filter: f, limit }, configFor(scan), { access: false });
  // The mind's size is counted once a minute, outside what these plans are about.
  beforeAll(() => tenantDb().run(TENANT, (tx) => search(tx, 'tea', 'vector', null, filter(), 1, { exact: true })));

  it('a rare word is matched through the GIN index, and vectors through HNSW in a large mind (its memories not in the index yet by their own index)', async () => {
    const seen = await planned(() =>
      tenantDb().run(TENANT, (tx) =>
        search(tx, 'the zeppelin', 'any', vector, filter(), 100, { exact: false, efSearch: 40 }),
      ),
    );
    const all = seen.join('\n');
    expect(all).toMatch(/Bitmap Index Scan on memories_search_idx/);
    expect(all).toMatch(/Index Scan using memories_embedding_idx/);
    expect(all).toMatch(/memories_unindexed_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it("the query's unseen words are counted in one statement, each through the index its frequency calls for", async () => {
    let counted = new Map<string, number>();
    const seen = await planned(() =>
      tenantDb().run(TENANT, async (tx) => {
        counted = await new MindStatsRepository().documentFrequencies(tx, MIND, ['zeppelin', 'tea', 'nowher'], 500);
      }),
    );
    // zeppelin: 1 memory in 1000; tea: every fourth, counted up to the cap; a word no memory has.
    expect(Object.fromEntries(counted)).toEqual({ zeppelin: ROWS / 1000, tea: 500, nowher: 0 });
    // One statement of ours; the function's own look-ups are nested in it (auto_explain reports both).
    expect(seen.filter((p) => /cross join unnest\(/.test(p))).toHaveLength(1);
    expect(seen.join('\n')).toMatch(/Bitmap Index Scan on memories_search_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it('an exact vector scan reads the mind by its b-tree, not the table', async () => {
    const seen = await planned(() =>
      tenantDb().run(TENANT, (tx) => search(tx, 'tea', 'vector', vector, filter(), 100, { exact: true })),
    );
    const all = seen.join('\n');
    expect(all).toMatch(/memories_mind_id_idx|memories_mind_time_idx/);
    expect(all).not.toMatch(/memories_embedding_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it('mode=all and filters keep to the indexes', async () => {
    const seen = await planned(() =>
      tenantDb().run(TENANT, (tx) =>
        search(tx, 'zeppelin', 'all', vector, { ...filter(), category: 'note', tags: ['x'], mustMatch: 'zeppelin' }, 100, { exact: false, efSearch: 40 }),
      ),
    );
    expect(seen.join('\n')).toMatch(/memories_search_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it('neighbours and hits are fetched by key', async () => {
    const seen = await planned(() =>
      tenantDb().run(TENANT, async (tx) => {
        const stats = { n: ROWS, avgdl: 40, df: new Map([['owl', ROWS / 4]]) };
        // As the service starts a search: sequential scans off for the transaction.
        const lexemes = await retrieval.startSearch(tx, 'owls');
        const found = await retrieval.search(tx, MIND, { q: 'owls', mode: 'any', vector: null, lexemes, stats }, filter(), 20, {
          bm25: { k1: 1.2, b: 0.75 },
          scan: { exact: true },
          minVectorSimilarity: 0.1,
          reach: 2,
          retention: { config: DEFAULT_LIFECYCLE, now: new Date() },
        });
        // The owls are every fourth memory: each hit brings neighbours that are not hits.
        expect(found.candidates.length).toBeGreaterThan(found.text.length);
      }),
    );
    expect(seen.join('\n')).toMatch(/memories_temporal_idx/);
    expect(seen.join('\n')).toMatch(/memories_pkey/);
    expect(seen.filter(seqScan)).toEqual([]);
  });
});

describe('plans of access recording', () => {
  it('a search\'s hits are updated by key, not found by reading the mind', async () => {
    const memories = new MemoryAccessesRepository();
    const ids = (await ownerQuery(db)<{ id: string }>(`select id from memories where mind_id = $1 order by id limit 10`, [MIND])).map((r) => r.id);
    const seen = await planned(() => new TenantDb(kysely).run(TENANT, (tx) => memories.recordAccess(tx, MIND, ids, new Date(), DEFAULT_LIFECYCLE)));
    const update = seen.find((p) => p.includes('Update on memories')) ?? '';
    expect(update).toMatch(/Index Scan using memories_pkey/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it('the write-behind flush finds its memories by key too', async () => {
    const memories = new MemoryAccessesRepository();
    const ids = (await ownerQuery(db)<{ id: string }>(`select id from memories where mind_id = $1 order by id limit 50`, [MIND])).map((r) => r.id);
    const at = new Date();
    const seen = await planned(() =>
      new TenantDb(kysely).run(TENANT, async (tx) => memories.writeAccesses(tx, (await memories.accessStates(tx, ids)).map((s) => accessedRow(s, at, DEFAULT_LIFECYCLE)))),
    );
    const read = seen.find((p) => p.includes('LockRows')) ?? '';
    const update = seen.find((p) => p.includes('Update on memories')) ?? '';
    expect(read).toMatch(/Index Scan (using|on) memories_pkey/);
    expect(update).toMatch(/Index Scan (using|on) memories_pkey/);
    expect(seen.filter(seqScan)).toEqual([]);
  });
});

describe('plans of recall', () => {
  it('reads each priority as a range of memories_recall_idx up to the limit: no sort of the whole mind', async () => {
    const memories = new MemoriesRepository();
    // At 4000 rows a sequential scan and a sort are cheapest; priced out, the plan shows the
    // index path that a mind of a million takes.
    await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'off', false)`));
    try {
      const seen = await planned(() =>
        new TenantDb(kysely).run(TENANT, async (tx) => {
          await memories.recall(tx, MIND, new Date(), 50);
          await memories.recall(tx, MIND, new Date(), 200, { priority: 'critical' });
        }),
      );
      const recalls = seen.filter((p) => p.includes('recall_rank'));
      expect(recalls).toHaveLength(2);
      const [all, critical] = recalls as [string, string];
      // Each priority a range of the recall index, newest first, read up to the limit: four
      // ranges for the whole mind, one for the critical memories; never the mind end to end.
      expect(all.match(/Index Scan using memories_recall_idx/g)).toHaveLength(4);
      expect(critical.match(/Index Scan using memories_recall_idx/g)).toHaveLength(1);
      for (const plan of recalls) expect(plan).toMatch(/Index Cond: .*priority = /);
      expect(seen.filter(seqScan)).toEqual([]);
    } finally {
      await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'on', false)`));
    }
  });
});

describe('plans of the sweeps', () => {
  it('forgetting and tiering find their rows by index, with sequential scans priced out as on a large table', async () => {
    const tenantDb = new TenantDb(kysely);
    const settings = new LifecycleSettings(new TenantsRepository(), new MemoriesRepository(), tenantDb);
    const [forgetting, tiering] = [new ForgettingJob(tenantDb, new MemorySweepsRepository(), settings), new TieringJob(tenantDb, new MemorySweepsRepository(), settings, { LARGE_MIND_MEMORIES: 10_000 } as AppConfig)];
    // At 4000 rows a sequential scan is cheapest; priced out, the planner shows whether an
    // index path exists (a plan that still scans the table has none).
    await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'off', false)`));
    try {
      const at = new Date(Date.now() + 60 * 86_400_000);
      const seen = await planned(async () => {
        await forgetting.run(TENANT, at);
        await tiering.run(TENANT, at);
      });
      expect(seen.length).toBeGreaterThan(3);
      expect(seen.filter(seqScan)).toEqual([]);
    } finally {
      await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'on', false)`));
    }
    // Slow on a busy machine: the big mind's 4000 random vectors are in the HNSW index, and a tier
    // change re-inserts each there.
  }, 180_000);
});

describe('plans of a memory\'s deletion', () => {
  it('finds the webhook deliveries about the memory by webhook_deliveries_memory_idx, not by reading every delivery of the tenant', async () => {
    const id = (await ownerQuery(db)<{ id: string }>(`select id from memories where mind_id = $1 limit 1`, [MIND]))[0]?.id as string;
    await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'off', false)`));
    try {
      const seen = await planned(() => new TenantDb(kysely).run(TENANT, (tx) => new WebhooksRepository().deleteForMemory(tx, id)));
      const del = seen.find((p) => p.includes('Delete on webhook_deliveries')) ?? '';
      expect(del).toMatch(/Index Scan using webhook_deliveries_memory_idx/);
    } finally {
      await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'on', false)`));
    }
  });
});

describe('isolation of the text match', () => {
  it('engram_text_match answers nothing for a tenant other than the transaction’s', async () => {
    const count = (tenant: string, mind: string) =>
      new TenantDb(kysely).run(TENANT, async ({ trx }) => {
        const { rows } = await trx.executeQuery<{ n: number }>(
          CompiledQuery.raw(`select count(*)::int as n from engram_text_match($1::uuid, $2::uuid, $3::tsquery, 100000)`, [tenant, mind, `'tea'`]),
        );
        return rows[0]?.n;
      });
    // Asked for the other tenant's mind from a transaction set to this tenant: nothing.
    expect(await count(OTHER, OTHER_MIND)).toBe(0);
    expect(await count(TENANT, OTHER_MIND)).toBe(0);
    expect(await count(TENANT, MIND)).toBe(ROWS / 4);
  });
});

describe('plans of the association graph', () => {
  // The graph as the job leaves it once it has caught up: three links from every memory of the
  // two big minds (to the next three by id), every memory linked but the big mind's newest
  // twenty, which are to link.
  const UNLINKED = 20;
  const associations = new AssociationsRepository();
  const tenantDb = () => new TenantDb(kysely);
  let middle: string;

  beforeAll(async () => {
    const owner = ownerQuery(db);
    await owner(
      `with m as (select tenant_id, mind_id, id, row_number() over (partition by mind_id order by id) as k from memories where mind_id in ($1, $2))
       insert into memory_associations (tenant_id, mind_id, memory_id, target_id, relation, weight)
       select a.tenant_id, a.mind_id, a.id, b.id, (array['similar_to', 'precedes', 'shares_entity'])[d], 0.5
       from m a cross join generate_series(1, 3) d join m b on b.mind_id = a.mind_id and b.k = a.k + d`,
      [MIND, OTHER_MIND],
    );
    await owner(`update memories set associated_at = now() where id not in (select id from memories where mind_id = $1 order by id desc limit ${UNLINKED})`, [MIND]);
    await owner('vacuum analyze memories');
    await owner('analyze memory_associations');
    [{ id: middle }] = (await owner<{ id: string }>(`select id from memories where mind_id = $1 order by id offset $2 limit 1`, [MIND, ROWS / 2])) as [{ id: string }];
  }, 120_000);

  it('the job finds its memories by memories_unlinked_idx and their neighbours in time by memories_temporal_idx', async () => {
    const settings = new LifecycleSettings(new TenantsRepository(), new MemoriesRepository(), tenantDb());
    const job = new AssociationJob(tenantDb(), associations, new MindStatsRepository(), new TenantsRepository(), settings, { mode: 'postgres' });
    // As for the sweeps: at this size a sequential scan is cheapest; priced out, the plans show
    // the index paths a large mind takes.
    await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'off', false)`));
    try {
      let report: Record<string, number> = {};
      const seen = await planned(async () => {
        report = await job.run(TENANT);
      });
      expect(report['linked']).toBe(UNLINKED);
      expect(report['links']).toBeGreaterThan(UNLINKED);
      const unlinked = seen.filter((p) => p.includes('skip locked'));
      expect(unlinked).toHaveLength(1);
      // Read in the index's order up to the limit, not every unlinked memory sorted.
      expect(unlinked[0]).toMatch(/Index Scan using memories_unlinked_idx/);
      expect(unlinked[0]).not.toMatch(/Sort/);
      const link = seen.filter((p) => p.includes('insert into memory_associations'));
      expect(link).toHaveLength(1);
      // The nearest memory before and the nearest after, each a range of the temporal index.
      expect(link[0]!.match(/Index (Only )?Scan( Backward)? using memories_temporal_idx/g)?.length).toBeGreaterThanOrEqual(2);
      expect(seen.filter(seqScan)).toEqual([]);
    } finally {
      await kysely.executeQuery(CompiledQuery.raw(`select set_config('enable_seqscan', 'on', false)`));
    }
  });

  it('a memory’s links are listed through the primary key (its own) and memory_associations_target_idx (those pointing at it)', async () => {
    const seen = await planned(() =>
      tenantDb().run(TENANT, async (tx) => {
        const links = await associations.list(tx, MIND, middle, { limit: 20 });
        // Three from it, three to it.
        expect(links).toHaveLength(6);
      }),
    );
    const all = seen.join('\n');
    expect(all).toMatch(/Index (Only )?Scan using memory_associations_pkey/);
    expect(all).toMatch(/Index (Only )?Scan using memory_associations_target_idx|Bitmap Index Scan on memory_associations_target_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });

  it('search follows the top hits’ links both ways through the same two indexes', async () => {
    const hybrid = new HybridSearch(new RetrievalRepository(), new MindStatsRepository(), new MemoriesRepository(), {} as RequestEmbedder, accessRecorder(), systemClock);
    const seen = await planned(() =>
      tenantDb().run(TENANT, async (tx) => {
        const hits = await hybrid.search(tx, MIND, { q: 'zeppelin', mode: 'any', vector: null, filter: { activeAt: new Date() }, limit: 20 }, { ...DEFAULT_LIFECYCLE, associations: { ...DEFAULT_LIFECYCLE.associations, expand: true } }, { access: false });
        expect(hits.some((h) => h.explain.associations.length > 0)).toBe(true);
      }),
    );
    const search = seen.filter((p) => p.includes('memory_associations'));
    expect(search).toHaveLength(1);
    expect(search[0]).toMatch(/Index (Only )?Scan using memory_associations_pkey/);
    expect(search[0]).toMatch(/Index (Only )?Scan using memory_associations_target_idx|Bitmap Index Scan on memory_associations_target_idx/);
    expect(seen.filter(seqScan)).toEqual([]);
  });
});

import { SystemsConsolidationJob } from '@engram/jobs';
import { fakeLlm } from './support/fake-llm';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

const DAY = 86_400_000;

// Systems consolidation (seed 000; docs/design.md §7): episodes older than 30 days move to the neocortex
// and clusters of related ones are generalised into one semantic memory, linked both ways.
describe('systems consolidation: episodes generalised into semantic memories', () => {
  let t: TestApp;
  let f: TenantFixture;
  const ids: Record<string, string> = {};
  const now = new Date();

  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);

  beforeAll(async () => {
    t = await startTestApp();
    f = await createTenant(t, 'systems');
    const write = async (key: string, content: string, daysAgo: number) => {
      ids[key] = (
        await t
          .http()
          .post('/v1/memory')
          .set(asAgent(f))
          .send({ category: 'context', key, content, memory_type: 'episodic', tags: ['melanie'], occurred_at: new Date(now.getTime() - daysAgo * DAY).toISOString() })
          .expect(201)
      ).body.id;
    };
    await write('run_1', 'Melanie went running along the river this morning before work', 60);
    await write('run_2', 'Melanie went running along the river again before work, in the rain', 55);
    await write('run_3', 'This morning Melanie was running along the river before work', 45);
    await write('cat', 'Caroline adopted a cat from the shelter', 50);
    await write('recent_run', 'Melanie went running along the river before work today', 2);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('generalises a cluster of old episodes into one semantic memory, linked both ways', async () => {
    const report = await t.app.get(SystemsConsolidationJob).run(f.tenantId, now);
    expect(report).toEqual({ moved_to_neocortex: 4, generalised: 1 });

    const [semantic] = await owner<{ id: string; content: string; memory_type: string; layer: string; storage_location: string; association_graph: { generalises: string[] }; payload: { learning: { generalised_by: string } }; tags: string[] }>(
      `select id, content, memory_type, layer, storage_location, association_graph, payload, tags from memories where key like 'generalised_%'`,
    );
    expect(semantic).toMatchObject({ memory_type: 'semantic', layer: 'long_term', storage_location: 'neocortex', tags: ['melanie'] });
    expect(semantic!.content).toMatch(/a pattern across 3 episodes/);
    expect(semantic!.payload.learning.generalised_by).toBe('extractive');
    expect([...semantic!.association_graph.generalises].sort()).toEqual([ids['run_1'], ids['run_2'], ids['run_3']].sort());

    const links = await owner<{ key: string; into: string | null }>(`select key, association_graph->>'generalised_into' as into from memories where key not like 'generalised_%' order by key`);
    expect(links).toEqual([
      { key: 'cat', into: null },
      { key: 'recent_run', into: null },
      { key: 'run_1', into: semantic!.id },
      { key: 'run_2', into: semantic!.id },
      { key: 'run_3', into: semantic!.id },
    ]);

    // The agent finds the generalisation with the episodes.
    const hits = await t.http().get('/v1/memory/search').query({ q: 'does Melanie run' }).set(asAgent(f)).expect(200);
    expect(hits.body.items.map((m: { key: string }) => m.key)).toContain((await owner<{ key: string }>(`select key from memories where id = $1`, [semantic!.id]))[0]!.key);
  });

  it('a generalised memory is long-term with the long-term strength, whatever its importance', async () => {
    // Importance 0.7 classifies into short_term (1.5 × 7 = 10.5 days under the calibrated preset);
    // generalised knowledge is long-term (seed 000), so its strength is long_term's: 1.5 × 60 = 90 days.
    for (const [i, days] of [70, 65, 58].entries()) {
      await t
        .http()
        .post('/v1/memory')
        .set(asAgent(f))
        .send({ category: 'context', key: `paint_${i}`, content: `Caroline painted the sunrise over the lake at dawn (time ${i})`, memory_type: 'episodic', importance: 0.7, occurred_at: new Date(now.getTime() - days * DAY).toISOString() })
        .expect(201);
    }
    expect(await t.app.get(SystemsConsolidationJob).run(f.tenantId, now)).toEqual({ moved_to_neocortex: 3, generalised: 1 });
    const [semantic] = await owner<{ id: string; layer: string; strength_days: number; importance_score: number }>(
      `select id, layer, strength_days, importance_score from memories where key like 'generalised_%' and content like '%sunrise%'`,
    );
    expect(semantic).toMatchObject({ layer: 'long_term', strength_days: 90, importance_score: 0.7 });
    // An access never corrects a long-term memory's strength (promotion stops at long_term): it must be right from the start.
    const card = await t.http().get(`/v1/memory/${semantic!.id}/retention`).set(asAgent(f)).expect(200);
    expect(card.body).toMatchObject({ layer: 'long_term', strength_days: 90 });
  });

  it('a second run adds nothing', async () => {
    const before = await owner<{ n: number }>('select count(*)::int as n from memories');
    expect(await t.app.get(SystemsConsolidationJob).run(f.tenantId, now)).toEqual({ moved_to_neocortex: 0, generalised: 0 });
    expect(await owner<{ n: number }>('select count(*)::int as n from memories')).toEqual(before);
  });
});

describe('systems consolidation with an LLM: its one-sentence generalisation, extractive when it fails', () => {
  let t: TestApp;
  let f: TenantFixture;
  const now = new Date();
  let failing = false;
  const llm = fakeLlm((prompt) =>
    failing ? { status: 500 } : prompt.includes('one semantic memory') ? { content: '  Melanie runs along the river before work most mornings.\n' } : { content: '{"importance_score": 0.5}' },
  );
  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);
  const episodes = async (prefix: string, topic: string) => {
    for (const [i, days] of [60, 50, 40].entries()) {
      await t
        .http()
        .post('/v1/memory')
        .set(asAgent(f))
        .send({ category: 'context', key: `${prefix}_${i}`, content: `Melanie ${topic} (time ${i})`, memory_type: 'episodic', importance: 0.5, occurred_at: new Date(now.getTime() - days * DAY).toISOString() })
        .expect(201);
    }
  };

  beforeAll(async () => {
    t = await startTestApp({ LLM_URL: await llm.start(), LLM_TIMEOUT_MS: '2000' });
    f = await createTenant(t, 'systems-llm');
  });

  afterAll(async () => {
    await t?.close();
    await llm.stop();
  });

  it('stores the LLM sentence, trimmed, and sends it the episodes with their dates', async () => {
    await episodes('run', 'went running along the river before work');
    expect(await t.app.get(SystemsConsolidationJob).run(f.tenantId, now)).toEqual({ moved_to_neocortex: 3, generalised: 1 });
    const rows = await owner<{ content: string; by: string }>(`select content, payload->'learning'->>'generalised_by' as by from memories where key like 'generalised_%'`);
    expect(rows).toEqual([{ content: 'Melanie runs along the river before work most mornings.', by: 'llm' }]);
    const call = llm.calls.find((c) => c.prompt.includes('one semantic memory'));
    expect(call?.prompt).toContain(`(${new Date(now.getTime() - 60 * DAY).toISOString().slice(0, 10)}) Melanie went running along the river before work (time 0)`);
  });

  it('falls back to the extractive generalisation when the LLM fails', async () => {
    failing = true;
    await episodes('paint', 'painted the sunrise over the lake');
    expect(await t.app.get(SystemsConsolidationJob).run(f.tenantId, now)).toEqual({ moved_to_neocortex: 3, generalised: 1 });
    const rows = await owner<{ content: string; by: string }>(
      `select content, payload->'learning'->>'generalised_by' as by from memories where key like 'generalised_%' and content like '%sunrise%'`,
    );
    expect(rows).toEqual([{ content: expect.stringMatching(/a pattern across 3 episodes/), by: 'extractive' }]);
  });
});

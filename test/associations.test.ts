import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { TenantDb, vectorLiteral } from '@engram/db';
import { ASSOCIATION_BATCH, ASSOCIATION_PAIRS, AssociationJob, linkBudget } from '@engram/jobs';
import { createApp } from '../apps/api/src/create-app';
import { NO_SCHEDULES } from './support/env';
import { fixtureWriter, seedMemories } from './support/memory-fixtures';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

interface Link {
  relation: string;
  weight: number;
  via: string | null;
  direction: 'out' | 'in';
  created_at: string;
  memory: { id: string; category: string; key: string; content: string; memory_type: string; occurred_at: string };
}

const UNKNOWN = '0190a5a0-0000-7000-8000-000000000000';

// The memories of one mind: two near-identical statements, three turns of a conversation, two
// that name a rare name, unrelated ones (one will change), and seven variants of one statement
// (each links its nearest few, so some links are found only from the other side).
const ITEMS = [
  { key: 'tea_morning', content: 'The user drinks green jasmine tea every morning before work' },
  { key: 'tea_mornings', content: 'The user drinks green jasmine tea every morning before work starts' },
  { key: 'turn_one', content: 'We talked about repairing the garden fence', temporal_context: 'session-1', temporal_position: 1 },
  { key: 'turn_two', content: 'then we planned a weekend hike up the hill', temporal_context: 'session-1', temporal_position: 2 },
  { key: 'turn_three', content: 'finally we booked a table at the harbour restaurant', temporal_context: 'session-1', temporal_position: 4 },
  { key: 'invoice_call', content: 'Zephyrine called about the overdue invoice' },
  { key: 'lunch_plan', content: 'lunch next week with Zephyrine at noon' },
  { key: 'bike_repair', content: 'the bicycle needs new brake pads soon' },
  { key: 'piano_lesson', content: 'piano lessons moved to thursday evenings' },
  { key: 'passport', content: 'passport renewal is due in the spring' },
  ...[
    'The harbour ferry to the island leaves at seven every morning',
    'The harbour ferry to the island leaves at seven each morning',
    'The harbour ferry to the island leaves at seven on weekday mornings',
    'The island ferry from the harbour leaves at seven every morning',
    'The harbour ferry to the island departs at seven every morning',
    'The harbour ferry to the island leaves at seven every morning in summer',
    'The harbour ferry to the big island leaves at seven every morning',
  ].map((content, i) => ({ key: `ferry_${i + 1}`, content })),
].map((m) => ({ category: 'note', ...m }));

// The association graph through the API (issue 19 "Show it"; docs/design.md §6.8): links built by
// the background job (AssociationJob, run here by hand) are listed per memory with their relation,
// weight and the other memory, paginated, filtered and scoped like every memory route; search
// explains a hit a link brought in.
describe('associations: GET /v1/memory/:id/associations', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let job: AssociationJob;
  const ids: Record<string, string> = {};
  const theirs: Record<string, string> = {};

  const owner = <T>(query: string, params: unknown[] = []) => ownerQuery(t.db)<T>(query, params);
  const links = async (id: string, query: Record<string, string | number> = {}, headers = asAgent(a)): Promise<Link[]> =>
    (await t.http().get(`/v1/memory/${id}/associations`).query({ limit: 100, ...query }).set(headers).expect(200)).body.items;
  const linkTo = (list: Link[], key: string) => list.filter((l) => l.memory.id === ids[key]);
  const stats = async (f = a) => (await t.http().get('/v1/memory/stats').set(asAgent(f)).expect(200)).body.associations as { links: number; unlinked: number };
  /** Every link of the tenant as rows (what the job wrote), in a fixed order. */
  const graph = (tenantId: string) =>
    owner<{ memory_id: string; target_id: string; relation: string; weight: number; via: string | null }>(
      'select memory_id::text, target_id::text, relation, weight, via from memory_associations where tenant_id = $1 order by 1, 2, 3',
      [tenantId],
    );

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t, 'assoc-a');
    b = await createTenant(t, 'assoc-b');
    job = t.app.get(AssociationJob);
    // Two links a relation: the ferry variants link their two nearest, and are linked by more.
    await t.http().patch('/v1/tenant/settings/lifecycle').set({ Authorization: `Bearer ${a.token}` }).send({ associations: { per_relation: 2 } }).expect(200);
    const stored = await t.http().post('/v1/memory/batch').set(asAgent(a)).send({ items: ITEMS }).expect(200);
    for (const item of stored.body.items as { id: string; key: string }[]) ids[item.key] = item.id;
    // Another tenant with the same texts: its links must never show in this one.
    const copied = await t.http().post('/v1/memory/batch').set(asAgent(b)).send({ items: ITEMS }).expect(200);
    for (const item of copied.body.items as { id: string; key: string }[]) theirs[item.key] = item.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a memory has no links until the job has run; stats count it unlinked', async () => {
    expect(await links(ids.tea_morning!)).toEqual([]);
    expect(await stats()).toEqual({ links: 0, unlinked: ITEMS.length });
    const report = await job.run(a.tenantId);
    expect(report).toMatchObject({ linked: ITEMS.length });
    expect(report.links).toBeGreaterThan(0);
    await job.run(b.tenantId);
    expect(await stats()).toEqual({ links: report.links, unlinked: 0 });
  });

  it('links near-identical texts similar_to, with their cosine similarity and the other memory in short', async () => {
    const list = await links(ids.tea_morning!);
    const [similar] = linkTo(list, 'tea_mornings');
    expect(similar).toEqual({
      relation: 'similar_to',
      weight: expect.any(Number),
      via: null,
      direction: 'out',
      created_at: expect.any(String),
      memory: { id: ids.tea_mornings, category: 'note', key: 'tea_mornings', content: ITEMS[1]!.content, memory_type: 'semantic', occurred_at: expect.any(String) },
    });
    expect(similar!.weight).toBeGreaterThan(0.8);
    expect(similar!.weight).toBeLessThanOrEqual(1);
    // Strongest first.
    expect(list.map((l) => l.weight)).toEqual([...list.map((l) => l.weight)].sort((x, y) => y - x));
  });

  // A newcomer's: texts with no word the embedder knows have a vector of zeros, whose cosine
  // distance is NaN, and NaN passed the similarity floor: linked at weight 1 to unrelated memories.
  it('never links a memory whose vector is all zeros similar_to anything', async () => {
    const c = await createTenant(t, 'assoc-zero');
    const items = [
      { category: 'note', key: 'emoji', content: '🙂🙂🙂' },
      { category: 'note', key: 'quantum', content: 'a totally distinct sentence about quantum chromodynamics' },
      { category: 'note', key: 'dose', content: 'I take 10mg of lisinopril every morning' },
    ];
    const stored = (await t.http().post('/v1/memory/batch').set(asAgent(c)).send({ items }).expect(200)).body.items as { id: string; key: string }[];
    await job.run(c.tenantId);
    const emoji = stored.find((m) => m.key === 'emoji')!.id;
    const similar = (await graph(c.tenantId)).filter((l) => l.relation === 'similar_to' && (l.memory_id === emoji || l.target_id === emoji));
    expect(similar).toEqual([]);
  });

  it('links neighbours of a temporal context: what came before precedes, what came after follows (1 / gap)', async () => {
    const middle = await links(ids.turn_two!);
    expect(linkTo(middle, 'turn_one')).toEqual([expect.objectContaining({ relation: 'precedes', weight: 1 })]);
    expect(linkTo(middle, 'turn_three')).toEqual([expect.objectContaining({ relation: 'follows', weight: 0.5 })]);
    // Seen from either end, the relation is what the other memory is to this one.
    expect(linkTo(await links(ids.turn_one!), 'turn_two')).toEqual([expect.objectContaining({ relation: 'follows', weight: 1 })]);
    expect(linkTo(await links(ids.turn_three!), 'turn_two')).toEqual([expect.objectContaining({ relation: 'precedes', weight: 0.5 })]);
  });

  it("shows a link found from the other memory as direction in, with the relation as seen from here", async () => {
    const rows = await graph(a.tenantId);
    let seen = 0;
    for (const key of Object.keys(ids).filter((k) => k.startsWith('ferry_'))) {
      const list = await links(ids[key]!, { relation: 'similar_to' });
      // At most two of its own; more when others found it.
      expect(list.filter((l) => l.direction === 'out').length).toBeLessThanOrEqual(2);
      for (const l of list.filter((x) => x.direction === 'in')) {
        expect(rows).toContainEqual(expect.objectContaining({ memory_id: l.memory.id, target_id: ids[key], relation: 'similar_to' }));
        expect(rows).not.toContainEqual(expect.objectContaining({ memory_id: ids[key], target_id: l.memory.id, relation: 'similar_to' }));
        seen += 1;
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('links two memories naming a rare name shares_entity, via the name', async () => {
    const list = await links(ids.invoice_call!, { relation: 'shares_entity' });
    expect(list).toEqual([expect.objectContaining({ relation: 'shares_entity', via: 'zephyrine', memory: expect.objectContaining({ id: ids.lunch_plan }) })]);
    expect(list[0]!.weight).toBeGreaterThan(0);
  });

  it('the relation filter keeps one relation', async () => {
    for (const relation of ['similar_to', 'precedes', 'follows', 'shares_entity', 'generalises']) {
      for (const id of Object.values(ids)) {
        const all = await links(id);
        const only = await links(id, { relation });
        expect(only).toEqual(all.filter((l) => l.relation === relation));
      }
    }
  });

  it('pages through every link once, in order, with an opaque cursor', async () => {
    let pages = 0;
    for (const id of Object.values(ids)) {
      const all = await links(id);
      const walked: Link[] = [];
      let cursor: string | undefined;
      do {
        const res = await t.http().get(`/v1/memory/${id}/associations`).query({ limit: 1, ...(cursor ? { cursor } : {}) }).set(asAgent(a)).expect(200);
        expect(res.body.memory_id).toBe(id);
        expect(res.body.items.length).toBeLessThanOrEqual(1);
        walked.push(...res.body.items);
        cursor = res.body.next_cursor ?? undefined;
        pages += 1;
      } while (cursor);
      expect(walked).toEqual(all);
      expect(new Set(walked.map((l) => `${l.relation} ${l.memory.id}`)).size).toBe(walked.length);
    }
    // Some memories have several pages.
    expect(pages).toBeGreaterThan(Object.keys(ids).length + 10);
    // The default page is 20.
    const res = await t.http().get(`/v1/memory/${ids.tea_morning}/associations`).set(asAgent(a)).expect(200);
    expect(res.body.items.length).toBeLessThanOrEqual(20);
  });

  it('scoped like every memory route: a person with X-Mind-Id, a service key with memories:read; no access recorded', async () => {
    const expected = await links(ids.turn_two!);
    expect(await links(ids.turn_two!, {}, asUser(a))).toEqual(expected);
    const reader = await t.http().post('/v1/service-keys').set({ Authorization: `Bearer ${a.token}` }).send({ name: 'reader', scopes: ['memories:read'] }).expect(201);
    expect(await links(ids.turn_two!, {}, { Authorization: `Bearer ${reader.body.key}`, 'X-Mind-Id': a.mindId })).toEqual(expected);
    const writer = await t.http().post('/v1/service-keys').set({ Authorization: `Bearer ${a.token}` }).send({ name: 'writer', scopes: ['memories:write'] }).expect(201);
    await t.http().get(`/v1/memory/${ids.turn_two}/associations`).set({ Authorization: `Bearer ${writer.body.key}`, 'X-Mind-Id': a.mindId }).expect(403);
    await t.http().get(`/v1/memory/${ids.turn_two}/associations`).expect(401);
    const [row] = await owner<{ n: number }>('select sum(access_count)::int as n from memories where tenant_id = $1', [a.tenantId]);
    expect(row?.n).toBe(0);
  });

  it("another tenant's or mind's memory, an unknown or malformed id: 404 like a missing memory; their links never show", async () => {
    const answer = ({ requestId: _, ...body }: Record<string, unknown>) => body;
    // As GET /v1/memory/:id answers an id it does not find.
    const missing = answer((await t.http().get(`/v1/memory/${UNKNOWN}`).set(asAgent(a)).expect(404)).body);
    expect(missing).toEqual({ statusCode: 404, error: 'Not Found', message: 'memory not found' });
    const other = await t.http().post('/v1/minds').set({ Authorization: `Bearer ${a.token}` }).send({ name: 'second mind' }).expect(201);
    for (const [id, headers] of [
      [UNKNOWN, asAgent(a)],
      [theirs.tea_morning, asAgent(a)],
      [theirs.tea_morning, asUser(a)],
      [ids.tea_morning, asUser(a, other.body.id)],
      ['not-a-uuid', asAgent(a)],
    ] as const) {
      const res = await t.http().get(`/v1/memory/${id}/associations`).set(headers).expect(404);
      expect(answer(res.body)).toEqual(missing);
    }
    // The other tenant has its own links (same texts), none of them reached from here.
    expect((await links(theirs.tea_morning!, {}, asAgent(b))).length).toBeGreaterThan(0);
    const foreign = new Set(Object.values(theirs));
    for (const id of Object.values(ids)) {
      for (const l of await links(id)) expect(foreign.has(l.memory.id)).toBe(false);
    }
  });

  it('bad query parameters are 400s naming the field', async () => {
    const bad = async (query: string, field: string) => {
      const res = await t.http().get(`/v1/memory/${ids.tea_morning}/associations?${query}`).set(asAgent(a)).expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
    };
    await bad('limit=0', 'limit');
    await bad('limit=101', 'limit');
    await bad('limit=1&limit=2', 'limit');
    await bad('relation=friend_of', 'relation');
    await bad('cursor=bm90LWFuLWlk', 'cursor');
    await bad(`cursor=${Buffer.from(JSON.stringify([2, 'similar_to', UNKNOWN])).toString('base64url')}`, 'cursor');
    await bad('colour=red', 'colour');
  });

  it('shows the generalisation links of association_graph as generalises / generalised_into, weight 1', async () => {
    // As the systems consolidation writes them (libs/jobs episode-generalisation.ts): the semantic
    // memory lists its episodes, each episode points back. A stale id (deleted) and junk are left out.
    const semantic = (await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'note', key: 'generalised_hobbies', content: 'The user spends weekends outdoors' }).expect(201)).body;
    await owner(`update memories set association_graph = jsonb_build_object('generalises', jsonb_build_array($2::text, $3::text, $4::text, 'junk', 7)) where id = $1`, [semantic.id, ids.turn_one, ids.turn_two, UNKNOWN]);
    await owner(`update memories set association_graph = jsonb_build_object('generalised_into', $2::text) where id = any($1::uuid[])`, [[ids.turn_one, ids.turn_two], semantic.id]);
    const fromSemantic = await links(semantic.id, { relation: 'generalised_into' });
    expect(fromSemantic.map((l) => l.memory.id).sort()).toEqual([ids.turn_one, ids.turn_two].sort());
    expect(fromSemantic[0]).toMatchObject({ weight: 1, via: null, direction: 'out', created_at: semantic.created_at });
    const fromEpisode = await links(ids.turn_one!);
    expect(linkTo(fromEpisode, 'turn_two').map((l) => l.relation)).toEqual(['follows']);
    expect(fromEpisode[0]).toMatchObject({ relation: 'generalises', weight: 1, memory: { id: semantic.id, key: 'generalised_hobbies' }, created_at: semantic.created_at });
    // Pages cross the generalisation links and the graph's alike.
    const walked: Link[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.http().get(`/v1/memory/${ids.turn_one}/associations`).query({ limit: 1, ...(cursor ? { cursor } : {}) }).set(asAgent(a)).expect(200);
      walked.push(...res.body.items);
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    expect(walked).toEqual(fromEpisode);
    await t.http().delete(`/v1/memory/${semantic.id}`).set(asAgent(a)).expect(204);
    expect((await links(ids.turn_one!)).some((l) => l.relation === 'generalises')).toBe(false);
  });

  it('the job is idempotent: run again it links nothing; relinking everything writes the same links', async () => {
    const before = await graph(a.tenantId);
    expect(before.length).toBeGreaterThan(0);
    expect(await job.run(a.tenantId)).toEqual({ linked: 0, links: 0 });
    await owner('update memories set associated_at = null where tenant_id = $1', [a.tenantId]);
    const again = await job.run(a.tenantId);
    expect(again).toEqual({ linked: Object.keys(ids).length, links: before.length });
    expect(await graph(a.tenantId)).toEqual(before);
  });

  it('search follows a link one hop and explains it with associations.expand on; off (the default), it does not', async () => {
    const search = async () =>
      (await t.http().get('/v1/memory/search').query({ q: 'overdue invoice', explain: true }).set(asAgent(a)).expect(200)).body.items as {
        id: string;
        explain: { associations: { from: string; relation: string; weight: number }[] };
      }[];
    const plain = await search();
    expect(plain.some((h) => h.id === ids.invoice_call)).toBe(true);
    expect(plain.some((h) => h.id === ids.lunch_plan)).toBe(false);
    for (const hit of plain) expect(hit.explain.associations).toEqual([]);
    const admin = { Authorization: `Bearer ${a.token}` };
    await t.http().patch('/v1/tenant/settings/lifecycle').set(admin).send({ associations: { expand: true } }).expect(200);
    try {
      const hits = await search();
      const lunch = hits.find((h) => h.id === ids.lunch_plan);
      expect(lunch?.explain.associations).toEqual(expect.arrayContaining([{ from: ids.invoice_call, relation: 'shares_entity', weight: expect.any(Number) }]));
      // A pair linked both ways gives score once (a newcomer saw it counted twice).
      for (const hit of hits) expect(new Set(hit.explain.associations.map((l) => `${l.from} ${l.relation}`)).size).toBe(hit.explain.associations.length);
    } finally {
      await t.http().patch('/v1/tenant/settings/lifecycle').set(admin).send({ associations: { expand: null } }).expect(200);
    }
  });

  it("changing a memory's content rebuilds its links: unlinked until the job runs again", async () => {
    expect(await stats()).toMatchObject({ unlinked: 0 });
    expect(linkTo(await links(ids.bike_repair!, { relation: 'similar_to' }), 'tea_morning')).toEqual([]);
    await t.http().put(`/v1/memory/${ids.bike_repair}`).set(asAgent(a)).send({ content: 'The user drinks green jasmine tea every morning before work, always' }).expect(200);
    expect(await stats()).toMatchObject({ unlinked: 1 });
    expect(await job.run(a.tenantId)).toMatchObject({ linked: 1 });
    expect(await stats()).toMatchObject({ unlinked: 0 });
    const rebuilt = await links(ids.bike_repair!, { relation: 'similar_to' });
    expect(linkTo(rebuilt, 'tea_morning')).toEqual([expect.objectContaining({ direction: 'out' })]);
  });

  it('deleting a memory removes the links pointing at it', async () => {
    expect(linkTo(await links(ids.tea_morning!), 'tea_mornings').length).toBeGreaterThan(0);
    await t.http().delete(`/v1/memory/${ids.tea_mornings}`).set(asAgent(a)).expect(204);
    expect(linkTo(await links(ids.tea_morning!), 'tea_mornings')).toEqual([]);
    const [row] = await owner<{ n: number }>('select count(*)::int as n from memory_associations where $1 in (memory_id, target_id)', [ids.tea_mornings]);
    expect(row?.n).toBe(0);
  });

  it("deleting a memory between two others in time links them to each other at the job's next run (a newcomer's find)", async () => {
    expect(linkTo(await links(ids.turn_one!, { relation: 'follows' }), 'turn_two')).toEqual([expect.objectContaining({ direction: 'out' })]);
    await t.http().delete(`/v1/memory/${ids.turn_two}`).set(asAgent(a)).expect(204);
    // Only the two whose nearest neighbour in time it was wait to be linked again.
    expect(await stats()).toMatchObject({ unlinked: 2 });
    expect(await job.run(a.tenantId)).toMatchObject({ linked: 2 });
    expect(linkTo(await links(ids.turn_one!, { relation: 'follows' }), 'turn_three')).toEqual([expect.objectContaining({ direction: 'out', weight: 1 / 3 })]);
    expect(linkTo(await links(ids.turn_three!, { relation: 'precedes' }), 'turn_one')).toEqual([expect.objectContaining({ direction: 'out', weight: 1 / 3 })]);
    expect(await stats()).toMatchObject({ unlinked: 0 });
  });

  it('associations.build: false stops linking (the memory stays unlinked); on again, it is linked', async () => {
    const admin = { Authorization: `Bearer ${a.token}` };
    await t.http().patch('/v1/tenant/settings/lifecycle').set(admin).send({ associations: { build: false } }).expect(200);
    const fresh = (await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'note', key: 'tea_again', content: 'The user drinks green jasmine tea every morning before work' }).expect(201)).body;
    expect(await job.run(a.tenantId)).toEqual({ linked: 0, links: 0 });
    expect(await links(fresh.id)).toEqual([]);
    expect(await stats()).toMatchObject({ unlinked: 1 });
    await t.http().patch('/v1/tenant/settings/lifecycle').set(admin).send({ associations: null }).expect(200);
    expect(await job.run(a.tenantId)).toMatchObject({ linked: 1 });
    expect(linkTo(await links(fresh.id), 'tea_morning')).toEqual([expect.objectContaining({ relation: 'similar_to' })]);
  });
});

// The same endpoint on PGlite (no DATABASE_URL): the job's SQL and the list's run there too.
describe('associations in embedded mode (PGlite)', () => {
  let dir: string;
  let app: INestApplication;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-associations-'));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('links, lists and pages', async () => {
    app = await createApp(loadConfig({ ENGRAM_DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...NO_SCHEDULES }));
    await app.init();
    const http = request(app.getHttpServer());
    const reg = await http.post('/v1/auth/register').send({ email: 'links@example.test', password: 'embedded secret', tenant_name: 'Links' }).expect(201);
    const auth = { Authorization: `Bearer ${reg.body.token}` };
    const mind = await http.post('/v1/minds').set(auth).send({ name: 'linked mind' }).expect(201);
    const headers = { ...auth, 'X-Mind-Id': mind.body.id };
    const stored = await http.post('/v1/memory/batch').set(headers).send({ items: ITEMS }).expect(200);
    const byKey = Object.fromEntries((stored.body.items as { id: string; key: string }[]).map((m) => [m.key, m.id]));
    expect(await app.get(AssociationJob).run(reg.body.tenant.id)).toMatchObject({ linked: ITEMS.length });

    const all = (await http.get(`/v1/memory/${byKey.turn_two}/associations`).set(headers).expect(200)).body.items as Link[];
    expect(all).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ relation: 'precedes', memory: expect.objectContaining({ id: byKey.turn_one }) }),
        expect.objectContaining({ relation: 'follows', memory: expect.objectContaining({ id: byKey.turn_three }) }),
      ]),
    );
    const similar = (await http.get(`/v1/memory/${byKey.tea_morning}/associations`).query({ relation: 'similar_to' }).set(headers).expect(200)).body.items as Link[];
    expect(similar.map((l) => l.memory.id)).toContain(byKey.tea_mornings);
    const first = await http.get(`/v1/memory/${byKey.turn_two}/associations`).query({ limit: 1 }).set(headers).expect(200);
    const second = await http.get(`/v1/memory/${byKey.turn_two}/associations`).query({ limit: 100, cursor: first.body.next_cursor }).set(headers).expect(200);
    expect([...first.body.items, ...second.body.items]).toEqual(all);
  }, 180_000);
});

// Episodes consolidated from a conversation (the conversation stream, the way most agents feed a
// memory service) take their first message's place in it, so the graph links them in order (a
// newcomer found them with no temporal_position, hence no precedes / follows, which the MCP tool
// related_memories promises).
describe('associations: episodes of a conversation follow each other', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('each episode has its place in the conversation, and consecutive ones are linked precedes / follows', async () => {
    const a = await createTenant(t, 'assoc-episodes');
    const said = [
      'I adopted a grey kitten named Pixel from the shelter today',
      'Pixel already knocked my grandmother’s vase off the bookshelf',
      'Tomorrow I take Pixel to the vet in Harbour Street for her vaccinations',
    ];
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1, 9, i)).toISOString();
    await t.http().post('/v1/conversations/chat-1/messages').set(asAgent(a))
      .send({ messages: said.map((content, i) => ({ role: 'user', content, importance: 0.95, occurred_at: at(i) })) }).expect(201);
    const episodes = ((await t.http().get('/v1/memory').query({ limit: 50 }).set(asAgent(a)).expect(200)).body.items as { id: string; content: string; temporal_context: string | null; temporal_position: number | null }[])
      .filter((m) => m.temporal_context === 'conversation chat-1')
      .sort((x, y) => (x.temporal_position ?? -1) - (y.temporal_position ?? -1));
    expect(episodes.length).toBeGreaterThanOrEqual(2);
    for (const e of episodes) expect(e.temporal_position).toEqual(expect.any(Number));
    // Positions are the first messages' places: distinct, in the order said, from 0.
    expect(new Set(episodes.map((e) => e.temporal_position)).size).toBe(episodes.length);
    expect(episodes[0]?.temporal_position).toBe(0);
    await t.app.get(AssociationJob).run(a.tenantId);
    const [first, second] = episodes as [(typeof episodes)[0], (typeof episodes)[0]];
    const gap = (second.temporal_position as number) - (first.temporal_position as number);
    const listed = (await t.http().get(`/v1/memory/${first.id}/associations`).query({ relation: 'follows' }).set(asAgent(a)).expect(200)).body.items as Link[];
    expect(listed.map((l) => ({ id: l.memory.id, weight: l.weight }))).toContainEqual({ id: second.id, weight: 1 / gap });
  });

  it('places run on event time (a future occurred_at is its arrival); equal places are ordered by event time, one place apart (a newcomer found them never linked)', async () => {
    const a = await createTenant(t, 'assoc-places');
    // Each message saved at once (the explicit save), as its own episode.
    const post = async (content: string, extra: Record<string, unknown> = {}) => {
      await t.http().post('/v1/conversations/chat-f/messages').set(asAgent(a)).send({ messages: [{ role: 'user', content, importance: 0.95, ...extra }] }).expect(201);
      await t.http().post('/v1/conversations/chat-f/consolidate').set(asAgent(a)).expect(200);
    };
    await post('My sister Ines is moving to Porto next spring for her new job', { occurred_at: '2099-01-01T00:00:00Z' });
    await post('The removal van for Ines is booked with Lusitania Movers');
    const episodes = ((await t.http().get('/v1/memory').query({ limit: 50 }).set(asAgent(a)).expect(200)).body.items as { key: string; content: string; temporal_position: number | null }[])
      .filter((m) => m.key.startsWith('episode_'));
    expect(episodes.map((e) => [e.content.includes('sister') ? 'first' : 'second', e.temporal_position]).sort()).toEqual([['first', 0], ['second', 1]]);

    // Two keyed memories given the same place, and one after them.
    const keyed = [
      { key: 'same_a', content: 'Checked in at the mountain lodge', occurred_at: '2026-01-01T10:00:00Z' },
      { key: 'same_b', content: 'Rented skis and boots at the lodge shop', occurred_at: '2026-01-01T11:00:00Z' },
      { key: 'after', content: 'First run down the blue slope', occurred_at: '2026-01-01T12:00:00Z', temporal_position: 11 },
    ].map((m) => ({ category: 'note', temporal_context: 'ski trip', temporal_position: 10, ...m }));
    const stored = (await t.http().post('/v1/memory/batch').set(asAgent(a)).send({ items: keyed }).expect(200)).body.items as { id: string; key: string }[];
    const id = Object.fromEntries(stored.map((m) => [m.key, m.id]));
    await t.app.get(AssociationJob).run(a.tenantId);
    const follows = async (key: string) => ((await t.http().get(`/v1/memory/${id[key]}/associations`).query({ relation: 'follows' }).set(asAgent(a)).expect(200)).body.items as Link[]).filter((l) => l.direction === 'out').map((l) => [l.memory.key, l.weight]);
    expect(await follows('same_a')).toEqual([['same_b', 1]]);
    expect(await follows('same_b')).toEqual([['after', 1]]);
  });
});

// A bulk import into a mind of a few thousand (a newcomer's run: 500 new memories in a mind of
// 3,500 held embedded mode's one connection for 9.2 s): the job links it in transactions of at
// most ASSOCIATION_PAIRS distances each, so other work gets the connection in between, and still
// links every memory in one run.
describe('associations: a large mind is linked in bounded transactions', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('every memory linked in one run, no transaction comparing more than the budget of pairs', async () => {
    t = await startTestApp();
    const a = await createTenant(t, 'assoc-bulk');
    const size = 1_500;
    const seeds = Array.from({ length: size }, (_, i) => ({
      key: `bulk_${i}`,
      content: `bulk memory ${i} about ${['tea', 'ferries', 'pianos', 'gardens', 'invoices'][i % 5]} and item ${i % 37}`,
      state: { embedding: vectorLiteral(Array.from({ length: 768 }, (_, d) => Math.sin(i * 0.37 + d))), embedding_status: 'ready' as const },
    }));
    await seedMemories(fixtureWriter(t.app), { tenantId: a.tenantId, mindId: a.mindId }, seeds);
    const tenantDb = t.app.get(TenantDb);
    const transactions = jest.spyOn(tenantDb, 'run');
    const report = await t.app.get(AssociationJob).run(a.tenantId);
    expect(report.linked).toBe(size);
    const left = await ownerQuery(t.db)<{ unlinked: number }>('select count(*)::int as unlinked from memories where tenant_id = $1 and associated_at is null', [a.tenantId]);
    expect(left).toEqual([{ unlinked: 0 }]);
    // Each transaction linked at most linkBudget(…) of the mind's memories: 133 of 1,500.
    const perTransaction = linkBudget(ASSOCIATION_BATCH, size, true);
    expect(perTransaction).toBe(Math.floor(ASSOCIATION_PAIRS / size));
    expect(transactions.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(size / perTransaction));
    transactions.mockRestore();
  });
});

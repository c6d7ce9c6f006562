import { Client } from 'pg';
import { ManualClock } from '@engram/config';
import { waitFor } from './support/child-service';
import { fakeLlm } from './support/fake-llm';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

const fact = (key: string, content: string, importance = 0.8, category = 'fact') => ({ category, key, content, importance });

// The LLM path of consolidation (docs/design.md §4.3) against a local server that speaks the
// OpenAI chat protocol: keyed facts upserted through the one writer; every failure leaves the
// rule path's episode alone.
describe('fact extraction by an OpenAI-compatible LLM at consolidation', () => {
  let t: TestApp;
  let f: TenantFixture;
  let owner: Client;
  const clock = new ManualClock('2026-05-04T09:00:00Z');
  const llm = fakeLlm((prompt) => {
    // The importance prompt of each message: every message matters here.
    // The race with a purge below scores its message slowly: the purge runs in that time.
    if (prompt.includes('rate how important')) return { content: '{"importance_score": 0.9}', delayMs: prompt.includes('Cacilhas') ? 400 : 0 };
    if (prompt.includes('I work at Acme')) return { content: JSON.stringify({ facts: [fact('employer', 'The user works at Acme as a software engineer'), fact('job_title', 'The user is a software engineer', 0.7)] }) };
    if (prompt.includes('moved to Globex')) return { content: JSON.stringify({ facts: [fact('employer', 'The user works at Globex')] }) };
    if (prompt.includes('cilantro')) return { content: 'Here you go: [{"category": "preference", "key": "food_dislikes", "content": "The user hates cilantro", "importance": 0.6}, {"category": "colour", "key": "x", "content": "bad category"} ' };
    if (prompt.includes('garbage please')) return { content: 'I cannot help with that.' };
    if (prompt.includes('Initech')) return { content: JSON.stringify({ facts: [fact('initech', 'Works at Initech\u0000'), fact('lone', 'A lone \ud800 surrogate')] }) };
    if (prompt.includes('Stark Industries')) return { content: JSON.stringify({ facts: [fact('employer_verified', 'The user works at Stark Industries')] }) };
    if (prompt.includes('Umbrella')) return { content: JSON.stringify({ facts: [fact('workplace', 'The user works at Umbrella')] }) };
    if (prompt.includes('Initrode')) return { content: JSON.stringify({ facts: [fact('workplace', 'The user works at Initrode')] }) };
    if (prompt.includes('server error')) return { status: 500 };
    if (prompt.includes('too slow')) return { content: JSON.stringify({ facts: [fact('slow', 'never taken')] }), delayMs: 1500 };
    if (prompt.includes('nothing here')) return { content: '{"facts": []}' };
    return { content: '{"facts": []}' };
  });

  beforeAll(async () => {
    const url = await llm.start();
    t = await startTestApp({ LLM_URL: url, LLM_MODEL: 'test-model', LLM_TIMEOUT_MS: '500' }, { clock });
    f = await createTenant(t, 'facts-llm');
    owner = new Client({ connectionString: t.db.ownerUrl });
    await owner.connect();
  });
  afterAll(async () => {
    await owner.end();
    await t.close();
    await llm.stop();
  });

  const say = async (conversation: string, content: string) => {
    await t.http().post(`/v1/conversations/${conversation}/messages`).set(asAgent(f)).send({ messages: [{ role: 'user', content }] }).expect(201);
    clock.advance(60_000);
    return (await t.http().post(`/v1/conversations/${conversation}/consolidate`).set(asAgent(f)).expect(200)).body.consolidated as {
      memory_id: string;
      facts?: { memory_id: string; category: string; key: string; status: string }[];
    }[];
  };
  const rows = async (where: string, params: unknown[] = []) =>
    (await owner.query(`select category, key, content, importance_score, importance_source, memory_type, occurred_at, source_refs, version from memories where tenant_id = $1 and ${where} order by key`, [f.tenantId, ...params])).rows;

  it('upserts the keyed facts of a consolidated entry, with the schema asked for and the path recorded', async () => {
    const [outcome] = await say('a', 'I work at Acme as a software engineer');
    expect(outcome?.facts).toEqual([
      expect.objectContaining({ category: 'fact', key: 'employer', status: 'created' }),
      expect.objectContaining({ category: 'fact', key: 'job_title', status: 'created' }),
    ]);
    const call = llm.calls.find((c) => c.prompt.includes('I work at Acme') && !c.prompt.includes('rate how important'));
    expect(call?.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'facts' } });
    expect(call?.prompt).toContain('Keys the assistant already has: (none)');
    const facts = await rows(`memory_type = 'semantic'`);
    expect(facts).toEqual([
      expect.objectContaining({ key: 'employer', content: 'The user works at Acme as a software engineer', importance_score: 0.8, importance_source: 'llm_facts' }),
      expect.objectContaining({ key: 'job_title', importance_score: 0.7, importance_source: 'llm_facts' }),
    ]);
    // The episode, the rule path's memory, stays: the event as it was said.
    expect(await rows(`memory_type = 'episodic'`)).toEqual([expect.objectContaining({ content: 'user: I work at Acme as a software engineer' })]);
  });

  it('a new value of a key replaces the old one, and the history keeps it with when it was said', async () => {
    const saidAt = clock.now();
    const [outcome] = await say('a', 'I just moved to Globex, I work there now');
    expect(outcome?.facts).toEqual([expect.objectContaining({ key: 'employer', status: 'updated' })]);
    const call = llm.calls.filter((c) => c.prompt.includes('moved to Globex') && !c.prompt.includes('rate how important')).at(-1);
    expect(call?.prompt).toMatch(/Keys the assistant already has: .*fact\/employer/);
    const [employer] = await rows(`key = 'employer'`);
    expect(employer).toMatchObject({ content: 'The user works at Globex', version: 2 });
    expect((employer?.occurred_at as Date).toISOString()).toBe(saidAt.toISOString());
    const history = await t.http().get(`/v1/memory/${outcome?.facts?.[0]?.memory_id}/history`).set(asAgent(f)).expect(200);
    expect(history.body.items.map((v: { content: string }) => v.content)).toEqual(['The user works at Globex', 'The user works at Acme as a software engineer']);
  });

  it('text that is not JSON: the valid fact objects in it are taken, the invalid ones dropped', async () => {
    const [outcome] = await say('b', 'I hate cilantro, never put it in my food');
    expect(outcome?.facts).toEqual([expect.objectContaining({ category: 'preference', key: 'food_dislikes', status: 'created' })]);
  });

  it.each([
    ['garbage', 'garbage please, the rule path'],
    ['a 500', 'server error, the rule path'],
    ['a timeout', 'too slow, the rule path'],
    ['no facts', 'nothing here, the rule path'],
  ])('%s: the episode stands alone and the post succeeds', async (_label, content) => {
    const before = (await rows(`memory_type = 'semantic'`)).length;
    const [outcome] = await say(`c-${content.length}`, content);
    expect(outcome?.memory_id).toBeDefined();
    expect((await rows(`memory_type = 'semantic'`)).length).toBe(before);
    expect(await rows(`memory_type = 'episodic' and content = $2`, [`user: ${content}`])).toHaveLength(1);
  });

  it('a fact of text the API would refuse (a NUL, a lone surrogate) is dropped; the post and the episode stand', async () => {
    const [outcome] = await say('d', 'I work at Initech as a nurse');
    expect(outcome?.memory_id).toBeDefined();
    expect(outcome?.facts).toEqual([]);
    expect(await rows(`key in ('initech', 'lone')`)).toEqual([]);
  });

  it('a conversation older than the stored value of a key (a history sent late) does not replace it', async () => {
    const g = await createTenant(t, 'facts-backfill');
    const sayAt = async (conversation: string, content: string, at: string) => {
      await t.http().post(`/v1/conversations/${conversation}/messages`).set(asAgent(g)).send({ messages: [{ role: 'user', content, occurred_at: at }] }).expect(201);
      return (await t.http().post(`/v1/conversations/${conversation}/end`).set(asAgent(g)).expect(200)).body.consolidated[0]?.facts;
    };
    expect(await sayAt('newer', 'These days I work at Umbrella in the lab', '2025-06-01T10:00:00Z')).toEqual([expect.objectContaining({ key: 'workplace', status: 'created' })]);
    expect(await sayAt('older', 'Back then I worked at Initrode in the lab', '2023-01-10T10:00:00Z')).toEqual([expect.objectContaining({ key: 'workplace', status: 'unchanged' })]);
    const recall = await t.http().get('/v1/memory/recall').set(asAgent(g)).expect(200);
    expect(recall.text).toContain('The user works at Umbrella');
    expect(recall.text).not.toContain('The user works at Initrode');
  });

  it("a memory a person verified is not replaced by an extracted fact: the person's word stands, the episode keeps what was said", async () => {
    const g = await createTenant(t, 'facts-verified');
    const mine = await t.http().post('/v1/memory').set(asUser(g)).send({ category: 'fact', key: 'employer_verified', content: 'The user works at Wayne Enterprises' }).expect(201);
    expect(mine.body.verified).toBe(true);
    await t.http().post('/v1/conversations/v/messages').set(asAgent(g)).send({ messages: [{ role: 'user', content: 'My cousin said I work at Stark Industries lol' }] }).expect(201);
    const [outcome] = (await t.http().post('/v1/conversations/v/end').set(asAgent(g)).expect(200)).body.consolidated;
    expect(outcome.facts).toEqual([{ memory_id: mine.body.id, category: 'fact', key: 'employer_verified', status: 'unchanged' }]);
    const stored = await t.http().get(`/v1/memory/${mine.body.id}`).set(asAgent(g)).expect(200);
    expect(stored.body).toMatchObject({ content: 'The user works at Wayne Enterprises', verified: true, version: 1 });
    expect((await t.http().get(`/v1/memory/${outcome.memory_id}`).set(asAgent(g)).expect(200)).body.content).toContain('Stark Industries');
  });

  // A post scores its messages between storing them and reading the conversation's short-term
  // memory. A purge that deleted that memory in between (uncommitted while the post read it) saw
  // the post save the purged entries again once it committed; the sleep cycle then made them
  // memories. The purge here is the owner's transaction doing what DataRightsService.purgeMind does.
  it('a conversation post beside a purge does not bring the purged short-term memory back', async () => {
    const c = await createTenant(t, 'purge-race');
    const post = (content: string, extra: object = {}) => t.http().post('/v1/conversations/trip/messages').set(asAgent(c)).send({ messages: [{ role: 'user', content, ...extra }] });
    await post('We might visit the old harbour in Lisbon someday', { importance: 0.5 }).expect(201);
    const beside = post('The ferry to Cacilhas leaves every twenty minutes').then((r) => r.status);
    await waitFor('the post scoring its message', async () => llm.calls.some((x) => x.prompt.includes('Cacilhas')), 5_000, 10);
    const purge = new Client({ connectionString: t.db.ownerUrl });
    await purge.connect();
    try {
      await purge.query('begin');
      await purge.query('select id from minds where tenant_id = $1 and id = $2 for update', [c.tenantId, c.mindId]);
      await purge.query('delete from stm_entries where tenant_id = $1 and mind_id = $2', [c.tenantId, c.mindId]);
      // The scoring answers at 400 ms; the post then reads the buffer while the purge is open.
      await new Promise((resolve) => setTimeout(resolve, 900));
      await purge.query('commit');
    } finally {
      await purge.end();
    }
    expect(await beside).toBe(201);
    const entries = (await t.http().get('/v1/conversations/trip/stm').set(asAgent(c)).expect(200)).body.entries.map((e: { content: string }) => e.content);
    expect({ lisbon: entries.some((e: string) => e.includes('Lisbon')), cacilhas: entries.some((e: string) => e.includes('Cacilhas')) }).toEqual({ lisbon: false, cacilhas: true });
  });
});

import { asAgent, createTenant, startTestApp, storeMemory, type TenantFixture, type TestApp } from './support/test-app';

// "The newest fact wins" (issue 15 item 4) against a tester's peer reports (helper 34): the
// statement a search puts first must not depend on its limit, on which route changed the content,
// nor pick an unrelated fact over the one asked about.
describe('the newest of two statements of the same thing comes first', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const keys = async (f: TenantFixture, q: string, limit?: number) =>
    (await t.http().get('/v1/memory/search').query({ q, ...(limit ? { limit } : {}) }).set(asAgent(f)).expect(200)).body.items.map((m: { key: string }) => m.key);

  // openclaw #136984 (results stable across limits), graphiti #769 (the current fact first).
  it('whatever the limit: a smaller limit answers the first hits of a larger one', async () => {
    const f = await createTenant(t, 'limits');
    const say = async (content: string, at: string) => {
      await t.http().post('/v1/conversations/c/messages').set(asAgent(f)).send({ messages: [{ role: 'user', content, occurred_at: at }] }).expect(201);
      await t.http().post('/v1/conversations/c/end').set(asAgent(f)).expect(200);
    };
    await say('I take 20mg of lisinopril every morning for my blood pressure.', '2026-01-01T08:00:00Z');
    await say('My blood pressure medication is lisinopril 20mg, taken with breakfast.', '2026-01-02T08:00:00Z');
    await say('Actually, it is 40mg now, not 20.', '2026-02-01T08:00:00Z');
    const q = 'how many mg of lisinopril';
    const all = (await t.http().get('/v1/memory/search').query({ q, limit: 3 }).set(asAgent(f)).expect(200)).body.items.map((m: { content: string }) => m.content.split('\n')[0]);
    expect(all[0]).toBe('user: Actually, it is 40mg now, not 20.');
    for (const limit of [1, 2]) {
      const some = (await t.http().get('/v1/memory/search').query({ q, limit }).set(asAgent(f)).expect(200)).body.items.map((m: { content: string }) => m.content.split('\n')[0]);
      expect(some).toEqual(all.slice(0, limit));
    }
    const recall = await t.http().get('/v1/memory/recall').query({ q, limit: 1 }).set(asAgent(f)).expect(200);
    expect(recall.text).toContain('40mg now, not 20');
  });

  // A tester's find after mem0 #4536 and #5576: a value of two words ("green tea", "New York")
  // shares too few words with the next one for the variant rule, and limit=1 answered January's.
  it('a value of several words changed: the newer one first', async () => {
    const f = await createTenant(t, 'multi-word');
    const say = async (conversation: string, content: string, at: string) => {
      await t.http().post(`/v1/conversations/${conversation}/messages`).set(asAgent(f)).send({ messages: [{ content, occurred_at: at }] }).expect(201);
      await t.http().post(`/v1/conversations/${conversation}/end`).set(asAgent(f)).expect(200);
    };
    await say('jan', 'My favourite drink is green tea.', '2025-01-10T10:00:00Z');
    await say('feb', 'My favourite drink is black coffee.', '2025-02-20T10:00:00Z');
    await say('mar', 'I live in New York.', '2025-03-01T10:00:00Z');
    await say('apr', 'I live in San Francisco.', '2025-04-01T10:00:00Z');
    const first = async (q: string) => (await t.http().get('/v1/memory/search').query({ q, limit: 1 }).set(asAgent(f)).expect(200)).body.items.map((m: { content: string }) => m.content);
    expect(await first('favourite drink')).toEqual(['user: My favourite drink is black coffee.']);
    expect(await first('where do I live')).toEqual(['user: I live in San Francisco.']);
  });

  // The next tester's: with the rule above too loose, any "X is ..." pair was one statement, and
  // the newer of two attributes of one subject came first whatever the question.
  it('two attributes of one subject are two things: the one asked about stays first', async () => {
    const f = await createTenant(t, 'attributes');
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'day', content: 'The meeting is on Monday.', occurred_at: '2025-01-10T10:00:00Z' }).expect(201);
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'topic', content: 'The meeting is about budgets.', occurred_at: '2025-02-10T10:00:00Z' }).expect(201);
    expect(await keys(f, 'meeting Monday', 1)).toEqual(['day']);
  });

  // graphiti #1728: unrelated facts retired each other.
  it('two facts keyed apart are two things, however alike their words', async () => {
    const f = await createTenant(t, 'asked');
    await storeMemory(t, asAgent(f), { category: 'fact', key: 'tom_sister_city', content: "Tom's sister lives in Porto", occurred_at: '2023-01-01T00:00:00Z' }).expect(201);
    await storeMemory(t, asAgent(f), { category: 'fact', key: 'tom_boss_city', content: "Tom's boss lives in Porto" }).expect(201);
    expect((await keys(f, "where does Tom's sister live"))[0]).toBe('tom_sister_city');
    expect((await keys(f, "where does Tom's boss live"))[0]).toBe('tom_boss_city');
  });

  // graphiti #1841: a correction by PUT kept the old date and ranked as the older statement.
  it('new content by PUT is a statement made now', async () => {
    const f = await createTenant(t, 'put');
    const acme = await storeMemory(t, asAgent(f), { category: 'fact', key: 'employer_old', content: 'The user works at Acme', occurred_at: '2024-01-01T00:00:00Z' }).expect(201);
    await storeMemory(t, asAgent(f), { category: 'fact', key: 'employer_new', content: 'The user works at Globex', occurred_at: '2025-01-01T00:00:00Z' }).expect(201);
    const put = await t.http().put(`/v1/memory/${acme.body.id}`).set(asAgent(f)).send({ content: 'The user works at Initech' }).expect(200);
    expect(Date.parse(put.body.occurred_at)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
    expect((await keys(f, 'where does the user work'))[0]).toBe('employer_old');
    // Another field alone changes no statement: the date stays.
    const tagged = await t.http().put(`/v1/memory/${acme.body.id}`).set(asAgent(f)).send({ tags: ['work'] }).expect(200);
    expect(tagged.body.occurred_at).toBe(put.body.occurred_at);
    const dated = await t.http().put(`/v1/memory/${acme.body.id}`).set(asAgent(f)).send({ content: 'The user worked at Initech', occurred_at: '2019-05-01T00:00:00Z' }).expect(200);
    expect(dated.body.occurred_at).toBe('2019-05-01T00:00:00.000Z');
  });
});

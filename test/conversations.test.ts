import { ManualClock } from '@engram/config';
import { InProcessScheduler } from '@engram/jobs';
import request from 'supertest';
import { createApp } from '../apps/api/src/create-app';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

describe('conversation stream: attention, STM, consolidation (seed 000)', () => {
  let t: TestApp;
  let f: TenantFixture;
  const clock = new ManualClock('2026-05-01T09:00:00Z');
  const post = (conversation: string, messages: object[]) =>
    t.http().post(`/v1/conversations/${conversation}/messages`).set(asAgent(f)).send({ messages });

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    f = await createTenant(t, 'conversations');
  });
  afterAll(() => t.close());

  it('stores every message, leaves chatter out of STM, and the explicit save writes episodic memories', async () => {
    const res = await post('c1', [
      { speaker: 'Ana', content: 'ok' },
      { speaker: 'Ana', content: 'I love hiking in the Alps with my sister Maria!' },
      { speaker: 'Ben', content: 'We have a meeting with the investors next Friday at 3 pm in Berlin.' },
    ]).expect(201);
    expect(res.body).toMatchObject({ attended: 2, below_attention: 1, rehearsed: 0, stm_size: 2, stm_capacity: 7 });
    expect(res.body.message_ids).toHaveLength(3);

    const stm = await t.http().get('/v1/conversations/c1/stm').set(asAgent(f)).expect(200);
    expect(stm.body.entries.map((e: { content: string }) => e.content)).toEqual([
      'Ana: I love hiking in the Alps with my sister Maria!',
      'Ben: We have a meeting with the investors next Friday at 3 pm in Berlin.',
    ]);
    const meeting = stm.body.entries[1];
    expect(meeting).toMatchObject({ mentions: 1, decay_factor: 0.85, decision_now: 'stay', seconds_in_stm: 0 });
    expect(meeting.consolidation_score).toBeGreaterThan(0);

    const saved = await t.http().post('/v1/conversations/c1/consolidate').set(asAgent(f)).expect(200);
    expect(saved.body.conversation_id).toBe('c1');
    expect(saved.body.consolidated.map((c: { trigger: string; status: string }) => [c.trigger, c.status])).toEqual([
      ['explicit_save', 'created'],
      ['explicit_save', 'created'],
    ]);
    expect((await t.http().get('/v1/conversations/c1/stm').set(asAgent(f)).expect(200)).body.entries).toEqual([]);

    const memory = await t.http().get(`/v1/memory/${saved.body.consolidated[1].memory_id}`).set(asAgent(f)).expect(200);
    expect(memory.body).toMatchObject({
      memory_type: 'episodic',
      category: 'note',
      source: 'agent',
      source_refs: [res.body.message_ids[2]],
      synaptic_consolidated: true,
      occurred_at: '2026-05-01T09:00:00.000Z',
    });
    expect(memory.body.payload).toMatchObject({
      type: 'episodic',
      what: expect.stringContaining('meeting with the investors'),
      when: '2026-05-01T09:00:00.000Z',
      where: 'Berlin',
      who: expect.arrayContaining(['Ben']),
      significance: expect.any(Number),
      context: { conversation_id: 'c1' },
      associations: expect.any(Object),
    });
    const hiking = await t.http().get(`/v1/memory/${saved.body.consolidated[0].memory_id}`).set(asAgent(f)).expect(200);
    expect(hiking.body.category).toBe('preference');
    expect(hiking.body.payload.emotion).toBe('joy');
  });

  it('repetition rehearses an entry and, at three mentions, consolidates it once it has been in STM 30 s', async () => {
    const line = { speaker: 'Ana', content: 'Remind me to renew my passport before the trip' };
    const first = await post('c2', [line, line]).expect(201);
    expect(first.body).toMatchObject({ attended: 1, rehearsed: 1 });
    clock.advance(10_000);
    const third = await post('c2', [line]).expect(201);
    expect(third.body).toMatchObject({ rehearsed: 1, consolidated: [] });
    const stm = await t.http().get('/v1/conversations/c2/stm').set(asAgent(f)).expect(200);
    expect(stm.body.entries[0]).toMatchObject({ mentions: 3, rehearsal_count: 2, triggers: ['repetition'] });
    // 0.85 × 1.1 × 1.1 would pass 1: the factor stays below 1 (activation must still decay).
    expect(stm.body.entries[0].decay_factor).toBe(0.99);
    clock.advance(25_000);
    const later = await post('c2', [{ speaker: 'Ben', content: 'Sure, noted for the travel checklist.' }]).expect(201);
    expect(later.body.consolidated).toEqual([expect.objectContaining({ trigger: 'repetition', status: 'created' })]);
    const memory = await t.http().get(`/v1/memory/${later.body.consolidated[0].memory_id}`).set(asAgent(f)).expect(200);
    expect(memory.body.source_refs).toEqual(first.body.message_ids.slice(0, 1).concat(first.body.message_ids.slice(1), third.body.message_ids));
  });

  it('a full buffer (7) chunks or evicts its weakest entry; it never holds more', async () => {
    const topics = ['quantum physics lectures', 'sourdough bread recipe', 'football match tickets', 'jazz concert downtown', 'garden tomato plants', 'vintage camera repair', 'marathon training plan', 'volcano documentary night', 'chess opening theory'];
    const messages = topics.map((topic, i) => ({ speaker: i % 2 ? 'Ana' : 'Ben', content: `Let us talk about ${topic} today` }));
    const res = await post('c3', messages).expect(201);
    expect(res.body.stm_size).toBeLessThanOrEqual(7);
    const stm = await t.http().get('/v1/conversations/c3/stm').set(asAgent(f)).expect(200);
    expect(stm.body.entries.length).toBeLessThanOrEqual(7);
    const held = stm.body.entries.reduce((n: number, e: { message_ids: string[] }) => n + e.message_ids.length, 0);
    expect(held + res.body.discarded + res.body.consolidated.length).toBeGreaterThanOrEqual(9);
  });

  it('a message that repeats a memory reinforces it at once instead of copying; so does an entry consolidating into one', async () => {
    const kept = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'office_wifi', content: 'Ana: the office wifi password is orange-llama-42' }).expect(201);
    const res = await post('c4', [{ speaker: 'Ana', content: 'the office wifi password is orange-llama-42', importance: 0.9 }]).expect(201);
    expect(res.body).toMatchObject({ attended: 0, reinforced: [{ message_id: res.body.message_ids[0], memory_id: kept.body.id, key: 'office_wifi' }], stm_size: 0 });
    const memory = await t.http().get(`/v1/memory/${kept.body.id}`).set(asAgent(f)).expect(200);
    expect(memory.body.source_refs).toContain(res.body.message_ids[0]);
    expect(memory.body.access_count).toBe(2);
    const all = await t.http().get('/v1/memory/search').query({ q: 'wifi password' }).set(asAgent(f)).expect(200);
    expect(all.body.items).toHaveLength(1);

    // The memory appears while the entry waits in STM: consolidating integrates it.
    const waiting = await post('c4b', [{ speaker: 'Ana', content: 'the garage door code is 4711 since Monday', importance: 0.9 }]).expect(201);
    expect(waiting.body.attended).toBe(1);
    const code = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'garage_code', content: 'Ana: the garage door code is 4711 since Monday' }).expect(201);
    clock.advance(31_000);
    const later = await post('c4b', [{ speaker: 'Ben', content: 'Thanks, connecting the laptop right now.' }]).expect(201);
    expect(later.body.consolidated).toEqual([expect.objectContaining({ trigger: 'importance', status: 'reinforced', memory_id: code.body.id })]);
  });

  it('a fact said again after it changed is current again: "Paris", "Berlin", then "Paris" ranks Paris first, and the recall dates the repetition', async () => {
    const say = (conversation: string, content: string) => post(conversation, [{ role: 'user', content, importance: 0.9 }]).expect(201);
    const end = async (conversation: string) => (await t.http().post(`/v1/conversations/${conversation}/end`).set(asAgent(f)).expect(200)).body.consolidated[0].memory_id as string;
    await say('c4p', 'I live in Paris with my partner Sam');
    const paris = await end('c4p');
    clock.advance(86_400_000);
    await say('c4q', 'I live in Berlin with my partner Sam');
    const berlin = await end('c4q');
    expect(berlin).not.toBe(paris);
    clock.advance(86_400_000);
    const again = await say('c4r', 'I live in Paris with my partner Sam');
    expect(again.body.reinforced).toEqual([expect.objectContaining({ memory_id: paris })]);

    const found = await t.http().get('/v1/memory/search').query({ q: 'where do I live with Sam?' }).set(asAgent(f)).expect(200);
    const ids = found.body.items.map((m: { id: string }) => m.id);
    expect(ids.indexOf(paris)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(paris)).toBeLessThan(ids.indexOf(berlin));
    const memory = await t.http().get(`/v1/memory/${paris}`).set(asAgent(f)).expect(200);
    expect(memory.body.restated_at).toBe(clock.now().toISOString());
    expect(Date.parse(memory.body.occurred_at)).toBeLessThan(clock.now().getTime());
    const recall = await t.http().get('/v1/memory/recall').query({ q: 'where do I live with Sam?' }).set(asAgent(f)).expect(200);
    expect(recall.text).toContain(`, said again ${clock.now().toISOString().slice(0, 19).replace('T', ' ')} UTC\n  user: I live in Paris with my partner Sam`);

    // A value changed within one post (its messages received at one instant): the later one first.
    await post('c4u', ['My blood pressure medication is amlodipine 5mg.', 'The weather was lovely at the lake today.', 'We had pizza with the neighbours.', 'My blood pressure medication is amlodipine 10mg.'].map((content) => ({ role: 'user', content, importance: 0.9 }))).expect(201);
    await t.http().post('/v1/conversations/c4u/end').set(asAgent(f)).expect(200);
    const doses = (await t.http().get('/v1/memory/search').query({ q: 'amlodipine dose' }).set(asAgent(f)).expect(200)).body.items.map((m: { content: string }) => m.content);
    expect(doses.filter((c: string) => c.includes('amlodipine'))).toEqual(['user: My blood pressure medication is amlodipine 10mg.', 'user: My blood pressure medication is amlodipine 5mg.']);

    // An old history posted late repeats Berlin before it was first said: nothing newer.
    const late = await post('c4t', [{ role: 'user', content: 'I live in Berlin with my partner Sam', occurred_at: '2025-01-01T00:00:00Z', importance: 0.9 }]).expect(201);
    expect(late.body.reinforced).toEqual([expect.objectContaining({ memory_id: berlin })]);
    expect((await t.http().get(`/v1/memory/${berlin}`).set(asAgent(f)).expect(200)).body.restated_at).toBeNull();

    // The same within one conversation: the repetition rehearses the entry in STM, and the
    // episode it consolidates into is restated then.
    await say('c4s', 'I drive a Volvo to work every day');
    clock.advance(5000);
    await say('c4s', 'I drive a Tesla to work every day');
    clock.advance(5000);
    expect((await say('c4s', 'I drive a Volvo to work every day')).body.rehearsed).toBe(1);
    const ended = (await t.http().post('/v1/conversations/c4s/end').set(asAgent(f)).expect(200)).body.consolidated;
    const [volvo, tesla] = ended.map((c: { memory_id: string }) => c.memory_id);
    expect((await t.http().get(`/v1/memory/${volvo}`).set(asAgent(f)).expect(200)).body.restated_at).toBe(clock.now().toISOString());
    const cars = (await t.http().get('/v1/memory/search').query({ q: 'what car do I drive to work?' }).set(asAgent(f)).expect(200)).body.items.map((m: { id: string }) => m.id);
    expect(cars.slice(0, 2)).toEqual([volvo, tesla]);
  });

  it('a word added that reverses a statement makes a new memory, in STM and against long-term memory alike', async () => {
    const flight = 'My flight to Boston on Friday evening with United Airlines leaves from gate twelve';
    await post('c4e', [{ role: 'user', content: flight, importance: 0.9 }]).expect(201);
    const first = (await t.http().post('/v1/conversations/c4e/end').set(asAgent(f)).expect(200)).body.consolidated;
    expect(first).toEqual([expect.objectContaining({ status: 'created' })]);
    // Within one STM: not a rehearsal. Against the episode: not a reinforcement.
    const said = await post('c4f', [{ role: 'user', content: `${flight}, cancelled`, importance: 0.9 }]).expect(201);
    expect(said.body).toMatchObject({ attended: 1, reinforced: [], rehearsed: 0 });
    const again = await post('c4f', [{ role: 'user', content: `${flight}, postponed`, importance: 0.9 }]).expect(201);
    expect(again.body).toMatchObject({ attended: 1, rehearsed: 0 });
    const ended = await t.http().post('/v1/conversations/c4f/end').set(asAgent(f)).expect(200);
    expect(ended.body.consolidated.map((c: { status: string }) => c.status)).toEqual(['created', 'created']);
    // Each is found on its own; among statements of the same thing the one said last comes first
    // (the newest fact wins: "postponed" was said after "cancelled", in the same conversation).
    const found = await t.http().get('/v1/memory/search').query({ q: 'flight cancelled' }).set(asAgent(f)).expect(200);
    expect(found.body.items.slice(0, 3).map((m: { content: string }) => m.content)).toEqual([`user: ${flight}, postponed`, `user: ${flight}, cancelled`, `user: ${flight}`]);
  });

  it('a fact said again after its memory expired is a new memory, not a reinforcement of the expired one', async () => {
    const content = 'Ana: I work at the Lisbon office of Globex';
    const expiring = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'lisbon_office', content, expires_at: new Date(clock.now().getTime() + 2000).toISOString() }).expect(201);
    clock.advance(3000);
    const said = await post('c4c', [{ speaker: 'Ana', content: 'I work at the Lisbon office of Globex', importance: 0.9 }]).expect(201);
    expect(said.body).toMatchObject({ attended: 1, reinforced: [], stm_size: 1 });
    const saved = await t.http().post('/v1/conversations/c4c/consolidate').set(asAgent(f)).expect(200);
    expect(saved.body.consolidated).toEqual([expect.objectContaining({ status: 'created' })]);
    expect(saved.body.consolidated[0].memory_id).not.toBe(expiring.body.id);
    const found = await t.http().get('/v1/memory/search').query({ q: 'Lisbon office Globex' }).set(asAgent(f)).expect(200);
    expect(found.body.items[0].id).toBe(saved.body.consolidated[0].memory_id);
    expect(found.body.items.map((m: { id: string }) => m.id)).not.toContain(expiring.body.id);
    // The expired memory is as it was: still expired, the message not among its sources.
    const old = await t.http().get(`/v1/memory/${expiring.body.id}`).set(asAgent(f)).expect(200);
    expect(old.body.expires_at).toBe(expiring.body.expires_at);
    expect(old.body.source_refs).not.toContain(said.body.message_ids[0]);
  });

  it('a system message is logged but never attended: a system prompt re-sent every turn does not become a memory', async () => {
    const system = { role: 'system', content: 'User Memories:\nMind: m\nMemories: 1 total (1 verified, 0 unverified)\n\n[001] preference (NORMAL) [verified]\n  coffee\n  Drinks coffee black' };
    for (let turn = 0; turn < 3; turn++) {
      const res = await post('c4d', [system, { role: 'user', content: `what should I cook tonight, try ${turn}?`, importance: 0.1 }]).expect(201);
      expect(res.body).toMatchObject({ message_ids: [expect.any(String), expect.any(String)], rehearsed: 0, reinforced: [] });
      clock.advance(40_000);
    }
    const stm = await t.http().get('/v1/conversations/c4d/stm').set(asAgent(f)).expect(200);
    expect(stm.body.entries.map((e: { content: string }) => e.content).join('\n')).not.toContain('User Memories');
    const ended = await t.http().post('/v1/conversations/c4d/end').set(asAgent(f)).expect(200);
    for (const c of ended.body.consolidated) expect((await t.http().get(`/v1/memory/${c.memory_id}`).set(asAgent(f)).expect(200)).body.content).not.toContain('User Memories');
  });

  it("a user's request to remember is an explicit save: kept at once, whatever the rules score; an assistant's self-description is not the user's identity", async () => {
    const res = await post('c4r', [
      { role: 'user', content: "Don't forget: the spare key is under the blue pot" },
      { role: 'assistant', content: 'Remember this: I am an AI assistant and I love helping you', importance: 0.9 },
    ]).expect(201);
    expect(res.body.attended).toBe(2);
    clock.advance(40_000);
    const next = await post('c4r', [{ role: 'user', content: 'ok thanks' }]).expect(201);
    const outcomes = next.body.consolidated as { trigger: string; memory_id: string }[];
    expect(outcomes.map((c) => c.trigger)).toEqual(['importance', 'importance']);
    const memories = await Promise.all(outcomes.map(async (c) => (await t.http().get(`/v1/memory/${c.memory_id}`).set(asAgent(f)).expect(200)).body));
    const key = memories.find((m) => m.content.includes('spare key'));
    expect(key).toMatchObject({ importance_score: 0.8, importance_source: 'explicit_save', category: 'note' });
    expect(memories.find((m) => m.content.includes('AI assistant'))).toMatchObject({ importance_score: 0.9, importance_source: 'caller', category: 'note' });
  });

  it('a standing instruction is kept as a preference, and a family fact said as "we" or "our" is kept as the "I" form is', async () => {
    const res = await post('c4s', [
      { role: 'user', content: 'From now on, reply in German' },
      { role: 'user', content: 'Our son has autism' },
      { role: 'user', content: 'We live in a flat in Glasgow' },
    ]).expect(201);
    expect(res.body.attended).toBe(3);
    const ended = await t.http().post('/v1/conversations/c4s/end').set(asAgent(f)).expect(200);
    expect(ended.body).toMatchObject({ discarded: 0 });
    const made = await Promise.all(ended.body.consolidated.map(async (c: { memory_id: string }) => (await t.http().get(`/v1/memory/${c.memory_id}`).set(asAgent(f)).expect(200)).body));
    expect(made.map((m) => [m.content, m.category])).toEqual(
      expect.arrayContaining([
        ['user: From now on, reply in German', 'preference'],
        ['user: Our son has autism', 'note'],
        ['user: We live in a flat in Glasgow', 'note'],
      ]),
    );
  });

  it('past messages run on event time: an hour later the earlier entries have left STM; what they consolidate into starts its life now', async () => {
    const base = Date.parse('2026-04-01T10:00:00Z');
    const res = await post('c5', [
      { speaker: 'Ana', content: 'The dentist appointment is on Tuesday at 9 am', occurred_at: new Date(base).toISOString() },
      { speaker: 'Ana', content: 'I feel absolutely devastated and furious about the layoffs!!!', occurred_at: new Date(base + 60_000).toISOString() },
      { speaker: 'Ben', content: 'Let us plan the kitchen renovation budget', occurred_at: new Date(base + 3_600_000).toISOString() },
    ]).expect(201);
    // The first two are over 1800 s old when the third arrives: they leave, consolidated if they qualify.
    expect(res.body.stm_size).toBe(1);
    expect(res.body.consolidated.length + res.body.discarded).toBe(2);
    const emotional = res.body.consolidated.find((c: { trigger: string }) => c.trigger === 'emotion');
    expect(emotional).toBeDefined();
    // Dated by its message, alive from its consolidation: a history of last year consolidated
    // today is not forgotten by the next sweep (a newcomer's 400-day-old chat was).
    const memory = await t.http().get(`/v1/memory/${emotional.memory_id}/retention`).set(asAgent(f)).expect(200);
    expect(Date.parse(memory.body.review_schedule[0].at)).toBeGreaterThan(clock.now().getTime());
    expect(memory.body.current_retention).toBeGreaterThan(0.3);
    const row = await t.http().get(`/v1/memory/${emotional.memory_id}`).set(asAgent(f)).expect(200);
    expect(row.body.occurred_at).toBe(new Date(base + 60_000).toISOString());
  });

  // A tester's find: a message's metadata was accepted and never readable, and the ids a
  // memory's source_refs name pointed at nothing a client could read.
  it('lists the conversation as received, oldest first, with metadata, page by page; another mind sees none of it', async () => {
    const sent = [
      { client_id: 'l1', role: 'user', speaker: 'Ana', content: 'I booked the dentist for Friday at 9', metadata: { channel: 'sms', nested: { a: 1 } }, occurred_at: '2026-05-01T10:00:02Z' },
      { client_id: 'l2', role: 'assistant', content: 'Noted, Friday at 9.', occurred_at: '2026-05-01T10:00:03Z' },
      { client_id: 'l0', role: 'user', speaker: 'Ana', content: 'Hello there', occurred_at: '2026-05-01T10:00:01Z' },
    ];
    await post('log1', sent).expect(201);
    const first = await t.http().get('/v1/conversations/log1/messages').query({ limit: 2 }).set(asAgent(f)).expect(200);
    expect(first.body.items.map((m: { client_id: string }) => m.client_id)).toEqual(['l0', 'l1']);
    expect(first.body.items[1]).toMatchObject({ role: 'user', speaker: 'Ana', metadata: { channel: 'sms', nested: { a: 1 } }, occurred_at: '2026-05-01T10:00:02.000Z', importance: expect.any(Number) });
    const second = await t.http().get('/v1/conversations/log1/messages').query({ limit: 2, cursor: first.body.next_cursor }).set(asAgent(f)).expect(200);
    expect(second.body).toMatchObject({ conversation_id: 'log1', items: [{ client_id: 'l2', role: 'assistant', speaker: null, metadata: {} }], next_cursor: null });
    await t.http().get('/v1/conversations/log1/messages').query({ cursor: 'nope' }).set(asAgent(f)).expect(400);
    await t.http().get('/v1/conversations/log1/messages').query({ limit: 0 }).set(asAgent(f)).expect(400);
    const other = await createTenant(t, 'conversation-log-other');
    expect((await t.http().get('/v1/conversations/log1/messages').set(asAgent(other)).expect(200)).body).toEqual({ conversation_id: 'log1', items: [], next_cursor: null });
  });

  it('messages near the 32 KiB limit never wedge a conversation: chunks stay within a memory, content is fitted', async () => {
    const big = (n: number) => ({ speaker: 'Big', content: `${'lorem ipsum dolor '.repeat(1700)} number ${n}`.slice(0, 32_760), importance: 0.9, occurred_at: new Date(Date.parse('2026-04-20T10:00:00Z') + n * 1000).toISOString() });
    await post('c7', Array.from({ length: 12 }, (_, i) => big(i))).expect(201);
    const full = await post('c7', [{ speaker: 'Big', content: 'x'.repeat(32_768), occurred_at: '2026-04-20T11:00:00Z' }]).expect(201);
    expect(full.body.consolidated.length).toBeGreaterThan(0);
    await post('c7', [{ speaker: 'Dan', content: 'a short and ordinary message afterwards' }]).expect(201);
    const saved = await t.http().post('/v1/conversations/c7/consolidate').set(asAgent(f)).expect(200);
    for (const c of saved.body.consolidated) {
      const m = await t.http().get(`/v1/memory/${c.memory_id}`).set(asAgent(f)).expect(200);
      expect(Buffer.byteLength(m.body.content, 'utf8')).toBeLessThanOrEqual(32_768);
    }
  });

  it('a repeat that matters more lifts the entry it rehearses', async () => {
    const line = { speaker: 'Ana', content: 'the quarterly report goes to the board on monday' };
    await post('c8', [{ ...line, importance: 0 }]).expect(201);
    await post('c8', [{ ...line, importance: 1 }]).expect(201);
    const stm = await t.http().get('/v1/conversations/c8/stm').set(asAgent(f)).expect(200);
    expect(stm.body.entries[0]).toMatchObject({ mentions: 2, importance: 1, importance_source: 'caller', triggers: ['importance'] });
  });

  it('ending a conversation decides its STM at once, as the sleep cycle does after 30 quiet minutes', async () => {
    const lines = [
      { speaker: 'Ana', content: 'I love hiking in the Dolomites with my sister Maria', importance: 0.9 },
      { speaker: 'Ben', content: 'The new office in Lisbon opens on the first of March', importance: 0.7 },
      { speaker: 'Ana', content: 'maybe we could look at some other options later on', importance: 0.35 },
      { speaker: 'Ben', content: 'sure, we can talk about the other options some time', importance: 0.3 },
    ];
    const g = await createTenant(t, 'conversation-end');
    expect((await post('c10', lines).expect(201)).body).toMatchObject({ attended: 4, consolidated: [], stm_size: 4 });
    const end = await t.http().post('/v1/conversations/c10/end').set(asAgent(f)).expect(200);
    expect(end.body.conversation_id).toBe('c10');
    expect(end.body.consolidated.length).toBeGreaterThan(0);
    expect(end.body.discarded).toBeGreaterThan(0);
    expect(end.body.consolidated.length + end.body.discarded).toBe(4);
    expect((await t.http().get('/v1/conversations/c10/stm').set(asAgent(f)).expect(200)).body.entries).toEqual([]);
    const endedContents: string[] = [];
    for (const c of end.body.consolidated) endedContents.push((await t.http().get(`/v1/memory/${c.memory_id}`).set(asAgent(f)).expect(200)).body.content);

    // The same lines left to the sleep cycle in another tenant: the same memories, 30 minutes later.
    await t.http().post('/v1/conversations/c10/messages').set(asAgent(g)).send({ messages: lines }).expect(201);
    clock.advance(29 * 60_000);
    await t.app.get(InProcessScheduler).sleepAll();
    expect((await t.http().get('/v1/conversations/c10/stm').set(asAgent(g)).expect(200)).body.entries.length).toBeGreaterThan(0);
    clock.advance(2 * 60_000);
    await t.app.get(InProcessScheduler).sleepAll();
    expect((await t.http().get('/v1/conversations/c10/stm').set(asAgent(g)).expect(200)).body.entries).toEqual([]);
    const slept = await t.http().get('/v1/memory').query({ limit: 50 }).set(asAgent(g)).expect(200);
    expect(slept.body.items.map((m: { content: string }) => m.content).sort()).toEqual(endedContents.sort());

    // Nothing left: ending again, or a conversation never started, does nothing.
    expect((await t.http().post('/v1/conversations/c10/end').set(asAgent(f)).expect(200)).body).toEqual({ conversation_id: 'c10', consolidated: [], discarded: 0 });
    expect((await t.http().post('/v1/conversations/never-started/end').set(asAgent(f)).expect(200)).body).toEqual({ conversation_id: 'never-started', consolidated: [], discarded: 0 });
    await t.http().post('/v1/conversations/bad id/end').set(asAgent(f)).expect(400);
    // No options: `{}` is fine, a field is named rather than ignored (a newcomer's `{"force": true}` was taken silently).
    await t.http().post('/v1/conversations/c10/end').set(asAgent(f)).send({}).expect(200);
    for (const route of ['end', 'consolidate']) {
      const res = await t.http().post(`/v1/conversations/c10/${route}`).set(asAgent(f)).send({ force: true }).expect(400);
      expect(res.body.errors).toEqual([{ field: 'force', message: expect.any(String) }]);
    }
  });

  it('the in-process scheduler runs the sleep cycle and the forgetting sweep', async () => {
    const scheduler = t.app.get(InProcessScheduler);
    await post('c9', [{ speaker: 'Ana', content: 'I am absolutely thrilled and overjoyed about the new baby!!!' }]).expect(201);
    clock.advance(45_000);
    expect(await scheduler.sleepAll()).toBeGreaterThanOrEqual(1);
    expect((await t.http().get('/v1/conversations/c9/stm').set(asAgent(f)).expect(200)).body.entries).toEqual([]);
    expect(await scheduler.sleepAll()).toBe(0);
    clock.advance(400 * 86_400_000);
    expect(await scheduler.forgetAll()).toBeGreaterThan(0);
    expect(await scheduler.forgetAll()).toBe(0);
  });

  it('searches right after the stream rank as a freshly started process ranks them (its near-duplicate checks leave no stale statistics)', async () => {
    const g = await createTenant(t, 'fresh-stats');
    const lines = [
      'The lighthouse keeper on Ushant kept a logbook of every storm',
      'We visited the maritime museum in Brest and saw old lenses',
      'My sister collects postcards of lighthouses from Brittany',
      'The ferry to Ouessant leaves at nine every morning in summer',
      'A Fresnel lens bends light so a lighthouse can be seen far out',
      'The keeper retired when the lighthouse was automated in 1990',
    ];
    await t.http().post('/v1/conversations/fresh/messages').set(asAgent(g)).send({ messages: lines.map((content) => ({ content, importance: 0.5 })) }).expect(201);
    await t.http().post('/v1/conversations/fresh/consolidate').set(asAgent(g)).expect(200);
    const q = { q: 'lighthouse keeper lens museum', explain: 'true', limit: 10 };
    const scores = (res: request.Response) =>
      Object.fromEntries((res.body.items as { id: string; explain: { text: { bm25: number } } }[]).map((m) => [m.id, +m.explain.text.bm25.toFixed(9)]));
    const here = scores(await t.http().get('/v1/memory/search').query(q).set(asAgent(g)).expect(200));
    const fresh = await createApp(t.config);
    await fresh.init();
    try {
      const there = scores(await request(fresh.getHttpServer()).get('/v1/memory/search').query(q).set(asAgent(g)).expect(200));
      expect(Object.keys(here).length).toBeGreaterThanOrEqual(4);
      expect(here).toEqual(there);
    } finally {
      await fresh.close();
    }
  });

  it('a message with a client_id the conversation holds is skipped: a whole history posted each call is stored and scored once', async () => {
    const history = [
      { client_id: 'm1', speaker: 'Ana', content: 'We should maybe grab lunch sometime next week' },
      { client_id: 'm2', speaker: 'Ben', content: 'Sure, how about Thursday at the Thai place?' },
      { client_id: 'm3', speaker: 'Ana', content: 'Thursday works, I will book a table for two' },
    ];
    const calls = [];
    for (let n = 1; n <= 3; n++) calls.push((await post('c7', history.slice(0, n)).expect(201)).body);
    expect(calls.map((c) => [c.message_ids.length, c.duplicates])).toEqual([[1, 0], [1, 1], [1, 2]]);
    // The first line was said once: not a repetition, however often the history carried it.
    const stm = await t.http().get('/v1/conversations/c7/stm').set(asAgent(f)).expect(200);
    const lunch = stm.body.entries.find((e: { content: string }) => e.content.includes('grab lunch'));
    expect(lunch).toMatchObject({ mentions: 1, rehearsal_count: 0 });
    // The same history sent twice at once: each message stored once (the unique index decides).
    const again = [{ client_id: 'm4', content: 'I booked it for 12:30' }, { client_id: 'm4', content: 'I booked it for 12:30' }];
    const both = await Promise.all([post('c7', again), post('c7', again)]);
    expect(both.map((r) => r.status)).toEqual([201, 201]);
    expect(both.reduce((s, r) => s + r.body.message_ids.length, 0)).toBe(1);
    expect(both.map((r) => r.body.duplicates).sort()).toEqual([1, 2]);
    // Without a client_id a repeat is a repeat (rehearsal, seed 000).
    const plain = await post('c7', [{ content: 'Thursday works, I will book a table for two' }]).expect(201);
    expect(plain.body).toMatchObject({ duplicates: 0 });
    expect(plain.body.message_ids).toHaveLength(1);
    const bad = await post('c7', [{ client_id: 'has space', content: 'hello there world' }]).expect(400);
    expect(bad.body.errors[0].field).toBe('messages[0].client_id');
    // One client_id on two different messages: the second would be lost silently; a 400, nothing stored.
    const clash = await post('c7', [
      { client_id: 'm5', content: 'My sister Anna lives in Porto' },
      { client_id: 'm6', content: 'Anna is a nurse there' },
      { client_id: 'm5', content: 'My brother Tom lives in Faro' },
    ]).expect(400);
    expect(clash.body.errors).toEqual([expect.objectContaining({ field: 'messages[2].client_id', message: expect.stringContaining('messages[0].client_id') })]);
    const after = await post('c7', [{ client_id: 'm5', content: 'My sister Anna lives in Porto' }]).expect(201);
    expect(after.body).toMatchObject({ duplicates: 0 });
    // Copies are the same message whatever the order of their metadata's keys or how their instant is written.
    const copies = await post('c7', [
      { client_id: 'm7', content: 'Anna works nights', occurred_at: '2026-05-01T09:00:00Z', metadata: { a: 1, b: 2 } },
      { client_id: 'm7', content: 'Anna works nights', occurred_at: '2026-05-01T11:00:00.000+02:00', metadata: { b: 2, a: 1 } },
    ]).expect(201);
    expect(copies.body.message_ids).toHaveLength(1);
  });

  it('rejects bad messages naming the field, and a bad conversation id', async () => {
    const bad = await post('c6', [{ content: '' }]).expect(400);
    expect(bad.body.errors[0].field).toBe('messages[0].content');
    const role = await post('c6', [{ role: 'robot', content: 'hi there friend' }]).expect(400);
    expect(role.body.errors[0].field).toBe('messages[0].role');
    await t.http().post('/v1/conversations/c6/messages').set(asAgent(f)).send({ messages: [] }).expect(400);
    const id = await t.http().post(`/v1/conversations/${'x'.repeat(201)}/messages`).set(asAgent(f)).send({ messages: [{ content: 'hello there world' }] }).expect(400);
    expect(id.body.errors[0].field).toBe('conversationId');
    // A dot segment, sent encoded: clients resolve '.' and '..' away, so the API refuses them as ids.
    for (const dots of ['%2E', '%2E%2E']) {
      const res = await t.http().post(`/v1/conversations/${dots}/messages`).set(asAgent(f)).send({ messages: [{ content: 'hello there world' }] }).expect(400);
      expect(res.body.errors[0]).toMatchObject({ field: 'conversationId', message: expect.stringContaining('not "." nor ".."') });
    }
    await t.http().post('/v1/conversations/..x/messages').set(asAgent(f)).send({ messages: [{ content: 'hello there world' }] }).expect(201);
  });
});

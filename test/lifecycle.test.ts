import { DEFAULT_LIFECYCLE, classifyLayer, scoreByRulesAndFacts } from '@engram/memory';
import { ManualClock } from '@engram/config';
import { ForgettingJob } from '@engram/jobs';
import { asAgent, asUser, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

const HOUR = 3_600_000;

describe('memory lifecycle through the API (seed 001)', () => {
  let t: TestApp;
  let f: TenantFixture;
  const clock = new ManualClock('2026-03-06T15:00:00Z');
  const owner = () => ({ Authorization: `Bearer ${f.token}` });

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    f = await createTenant(t, 'lifecycle');
  });
  afterAll(() => t.close());

  it('settings: defaults are docs/design.md §5 (calibrated); overrides are validated as a whole; owners only', async () => {
    const initial = await t.http().get('/v1/tenant/settings/lifecycle').set(owner()).expect(200);
    expect(initial.body.overrides).toEqual({});
    expect(initial.body.effective.retention).toMatchObject({ preset: 'calibrated', base_strength_days: 1.5, coefficients: { working: 1, short_term: 7, long_term: 60 } });
    expect(initial.body.effective.review.base_intervals_hours).toEqual([1, 6, 24, 72, 168]);

    const bad = await t.http().put('/v1/tenant/settings/lifecycle').set(owner()).send({ retention: { access_cap: 0 }, layers: { short_term_threshold: 0.9 }, colour: 'red' }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['colour', 'layers.short_term_threshold', 'retention.access_cap']);
    // The service's wording, not zod's ("Too big: expected number to be <=1000": a newcomer's).
    expect(bad.body.errors).toContainEqual({ field: 'retention.access_cap', message: 'must be at least 1' });
    const worded = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { ef_search: 5000, candidates: 'many' }, retention: { preset: 'fast' } }).expect(400);
    expect(worded.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'retrieval.ef_search', message: 'must be at most 1000' },
        { field: 'retrieval.candidates', message: 'must be a number' },
        { field: 'retention.preset', message: 'must be one of seed, calibrated' },
      ]),
    );
    // A newcomer's: a weight of 1e300 and a keyword given twice were taken.
    const extreme = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { priority_weights: { critical: 1e300 } }, importance: { keywords: ['deadline', 'Deadline'] } }).expect(400);
    expect(extreme.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'retrieval.priority_weights.critical', message: 'must be at most 10' },
        { field: 'importance.keywords.1', message: 'repeats "Deadline"' },
      ]),
    );
    const padded = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ importance: { keywords: [' urgent ', 'cafe\u0301'] } }).expect(400);
    expect(padded.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['importance.keywords.0', 'importance.keywords.1']);
    // Helper 30's: an inner newline or a zero-width space never matches a message either.
    const hidden = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ importance: { keywords: ['due\ndate', 'ur\u200bgent', 'نمی\u200cخواهم', '\u200d', 'a\u202eb', 'x\u2028y', '\u3164', '👨\u200d👩\u200d👧'] } }).expect(400);
    // Helper 31's: a joiner alone, a bidirectional override, a line separator, a Hangul filler too.
    expect(hidden.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['importance.keywords.0', 'importance.keywords.1', 'importance.keywords.3', 'importance.keywords.4', 'importance.keywords.5', 'importance.keywords.6']);
    // A setting of an earlier version is named, with what replaced it.
    const probes = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { probes: 10 } }).expect(400);
    expect(probes.body.errors).toEqual([{ field: 'retrieval.probes', message: expect.stringContaining('retrieval.ef_search') }]);
    const empty = await t.http().put('/v1/tenant/settings/lifecycle').set(owner()).send({ '': '7d' }).expect(400);
    expect(empty.body.errors).toEqual([{ field: '""', message: 'is not a setting' }]);
    // An object is not a number: refused, not taken as "remove the override" (only null removes one).
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { ef_search: 200 } }).expect(200);
    const object = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { ef_search: {} } }).expect(400);
    expect(object.body.errors[0].field).toBe('retrieval.ef_search');
    const kept = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: {} }).expect(200);
    expect(kept.body.overrides).toEqual({ retrieval: { ef_search: 200 } });
    const removed = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { ef_search: null } }).expect(200);
    expect(removed.body.overrides).toEqual({});
    // A merge patch may say it is one (RFC 7396's media type; a newcomer's 415).
    const merged = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify({ retrieval: { ef_search: 150 } })).expect(200);
    expect(merged.body.overrides).toEqual({ retrieval: { ef_search: 150 } });
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { ef_search: null } }).expect(200);
    const order = await t.http().put('/v1/tenant/settings/lifecycle').set(owner()).send({ layers: { short_term_threshold: 0.9 } }).expect(400);
    expect(order.body.errors[0].field).toBe('layers.short_term_threshold');
    // Both branch weights at 0 would make every search answer nothing (a newcomer's).
    const silent = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { text_weight: 0, vector_weight: 0 } }).expect(400);
    expect(silent.body.errors[0]).toEqual({ field: 'retrieval.text_weight', message: expect.stringContaining('search would find nothing') });
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { vector_weight: 0 } }).expect(200);
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { vector_weight: null } }).expect(200);
    await t.http().get('/v1/tenant/settings/lifecycle').set(asAgent(f)).expect(403);
    const still = await t.http().get('/v1/tenant/settings/lifecycle').set(owner()).expect(200);
    expect(still.body.overrides).toEqual({});
  });

  it("reproduces seed 001's worked example: seed preset, importance 0.72", async () => {
    const put = await t.http().put('/v1/tenant/settings/lifecycle').set(owner()).send({ retention: { preset: 'seed' } }).expect(200);
    expect(put.body.effective.retention).toMatchObject({ preset: 'seed', base_strength_days: 0.1, coefficients: { working: 0.5, short_term: 1.5, long_term: 2 } });

    const created = await t
      .http()
      .post('/v1/memory')
      .set(asAgent(f))
      .send({ category: 'context', key: 'q2_review_meeting', content: 'Q2 requirements review with the product team in meeting room B, next Friday 3 pm', importance: 0.72 })
      .expect(201);
    expect(created.body).toMatchObject({ importance_score: 0.72, importance_source: 'caller', layer: 'short_term', initial_retention: 0.72, current_retention: 0.72, strength_days: 0.15 });

    const card = await t.http().get(`/v1/memory/${created.body.id}/retention`).set(asAgent(f)).expect(200);
    expect(card.body).toMatchObject({ layer: 'short_term', importance_score: 0.72, initial_retention: 0.72, current_retention: 0.72, strength_days: 0.15, access_count: 0, forgotten_at: null });
    const start = Date.parse(created.body.created_at);
    const hours = card.body.review_schedule.map((r: { at: string }) => (Date.parse(r.at) - start) / HOUR);
    [0.784, 4.704, 18.816, 56.448, 131.712].forEach((h, i) => expect(hours[i]).toBeCloseTo(h, 6));
    expect(card.body.review_schedule.every((r: { done: boolean }) => !r.done)).toBe(true);
    expect(card.body.next_review).toBe(card.body.review_schedule[0].at);
    // The forecast: 121 points over 30 days; one day later R = 0.72·e^(−24/(24·0.15)).
    expect(card.body.forecast).toHaveLength(121);
    expect(card.body.forecast[4].retention).toBeCloseTo(0.72 * Math.exp(-1 / 0.15), 9);
    // Reading the card is not an access.
    const again = await t.http().get(`/v1/memory/${created.body.id}/retention`).set(asAgent(f)).expect(200);
    expect(again.body.access_count).toBe(0);
  });

  it('a GET is an access: a due review reinforces R + 0.3·(1 − R); promotion follows importance ≥ 0.6', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'fact', key: 'review_me', content: 'Reviewed fact', importance: 0.72 }).expect(201);
    clock.advance(1 * HOUR);
    const r = 0.72 * Math.exp(-1 / (24 * 0.15));
    const read = await t.http().get(`/v1/memory/${created.body.id}`).set(asAgent(f)).expect(200);
    expect(read.body).toMatchObject({ access_count: 1, review_count: 1, layer: 'long_term', strength_days: 0.2 });
    expect(read.body.current_retention).toBeCloseTo(r + 0.3 * (1 - r), 9);
    const card = await t.http().get(`/v1/memory/${created.body.id}/retention`).set(asAgent(f)).expect(200);
    expect(card.body.review_schedule.map((s: { done: boolean }) => s.done)).toEqual([true, false, false, false, false]);
  });

  it('search hits and recall entries are accesses; lists are not', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'zebra_note', content: 'Zebras have stripes', importance: 0.3 }).expect(201);
    await t.http().get('/v1/memory').set(asAgent(f)).expect(200);
    await t.http().get('/v1/memory/search').query({ q: 'zebra stripes' }).set(asAgent(f)).expect(200);
    await t.http().get('/v1/memory/recall').set(asAgent(f)).expect(200);
    const card = await t.http().get(`/v1/memory/${created.body.id}/retention`).set(asAgent(f)).expect(200);
    expect(card.body.access_count).toBe(2);
  });

  it('without an importance, a keyed write is an explicit save: at least 0.8, long_term; without the floor the rule engine scores', async () => {
    const saved = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'pw', content: 'Backup password: in the blue box' }).expect(201);
    expect(saved.body).toMatchObject({ importance_score: 0.8, importance_source: 'explicit_save', layer: 'long_term' });
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ importance: { explicit_save_floor: 0 } }).expect(200);
    const scored = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'pw2', content: 'Backup password: in the blue box' }).expect(201);
    // Seed 001's rules give 0.1 ("password"); the fact score adds its length (a password with a
    // digit in it is a kept code, which the facts score at 1).
    const rules = scoreByRulesAndFacts('Backup password: in the blue box', {}, DEFAULT_LIFECYCLE);
    expect(rules).toBeGreaterThan(0.1);
    expect(rules).toBeLessThan(0.6);
    expect(scored.body).toMatchObject({ importance_source: 'rules', layer: classifyLayer(rules, DEFAULT_LIFECYCLE) });
    expect(scored.body.importance_score).toBeCloseTo(rules, 9);
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ importance: null }).expect(200);
  });

  it('PATCH merges into the overrides; PUT replaces them; bounds keep every derived time a real date', async () => {
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ forgetting: { soft_threshold: 0.25 } }).expect(200);
    const merged = await t.http().get('/v1/tenant/settings/lifecycle').set(owner()).expect(200);
    expect(merged.body.overrides).toEqual({ retention: { preset: 'seed' }, forgetting: { soft_threshold: 0.25 } });
    // RFC 7396: a null removes what is there and is no value where nothing is (a section without overrides).
    const removed = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ retrieval: { match_share: null, neighbor_weights: { adjacent: null } } }).expect(200);
    expect(removed.body.overrides).toEqual({ retention: { preset: 'seed' }, forgetting: { soft_threshold: 0.25 } });
    for (const bad of [
      { review: { base_intervals_hours: [1e10] } },
      { review: { min_interval_hours: 1e300 } },
      { stm: { initial_decay_factor: 0 } },
      { retention: { coefficients: { working: 100, short_term: 1, long_term: 0.001 } } },
      { retention: { initial_retention: 0 } },
      { importance: { weights: { relevance: 0, novelty: 0, emotional_impact: 0, actionable: 0, factual: 0, personal: 0 } } },
    ]) {
      const res = await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send(bad);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
    await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'still_fine', content: 'Writes still work' }).expect(201);
    await t.http().patch('/v1/tenant/settings/lifecycle').set(owner()).send({ forgetting: null }).expect(200);
    const back = await t.http().get('/v1/tenant/settings/lifecycle').set(owner()).expect(200);
    expect(back.body.overrides).toEqual({ retention: { preset: 'seed' } });
  });

  it('an importance the writer sets is kept: a later content change does not rescore it, and lowering it moves the layer down', async () => {
    const created = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'ratchet', content: 'Ratchet test', importance: 0.95 }).expect(201);
    expect(created.body).toMatchObject({ layer: 'long_term', initial_retention: 0.95 });
    const lowered = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ importance: 0.1 }).expect(200);
    expect(lowered.body).toMatchObject({ importance_score: 0.1, importance_source: 'caller', layer: 'working', initial_retention: 0.1 });
    expect(lowered.body.current_retention).toBeLessThanOrEqual(0.1);
    const edited = await t.http().put(`/v1/memory/${created.body.id}`).set(asAgent(f)).send({ content: 'Ratchet test, reworded' }).expect(200);
    expect(edited.body).toMatchObject({ importance_score: 0.1, importance_source: 'caller' });
  });

  // A newcomer saved "married in June 2025" with that occurred_at and lost it to the first sweep:
  // its curve had started 18 months earlier. What an agent saves now is learned now.
  it("a saved fact dated 18 months back outlives the next forgetting sweep and recalls with its date", async () => {
    const d = await createTenant(t, 'dated');
    const saved = await t.http().post('/v1/memory').set(asAgent(d)).send({ category: 'fact', key: 'wedding_date', content: 'The user got married to Sam in June 2025', occurred_at: '2025-06-14T15:00:00Z' }).expect(201);
    expect(saved.body).toMatchObject({ layer: 'long_term', current_retention: 0.8 });
    await t.app.get(ForgettingJob).run(d.tenantId, new Date(clock.now().getTime() + 15 * 60_000));
    const card = await t.http().get(`/v1/memory/${saved.body.id}/retention`).set(asAgent(d)).expect(200);
    expect(card.body).toMatchObject({ forgotten_at: null });
    expect(card.body.current_retention).toBeGreaterThan(0.79);
    const recall = await t.http().get('/v1/memory/recall').query({ q: 'when did the user get married' }).set(asAgent(d)).expect(200);
    expect(recall.text).toContain('The user got married to Sam in June 2025');
    expect(recall.text).toContain('2025-06-14');
  });

  it('a keyed write about a past event starts its life at the write; the event keeps its time', async () => {
    const when = new Date(clock.now().getTime() - 10 * 24 * HOUR).toISOString();
    const res = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'old_event', content: 'An old event', importance: 0.5, occurred_at: when }).expect(201);
    expect(res.body.occurred_at).toBe(when);
    const card = await t.http().get(`/v1/memory/${res.body.id}/retention`).set(asAgent(f)).expect(200);
    expect(card.body.current_retention).toBeCloseTo(0.5, 6);
    expect(Date.parse(card.body.review_schedule[0].at) - clock.now().getTime()).toBeCloseTo(0.85 * HOUR, -3);
  });

  it('changing the preset rescales every memory\'s strength', async () => {
    const res = await t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key: 'rescale', content: 'Rescale me', importance: 0.65 }).expect(201);
    expect(res.body.strength_days).toBeCloseTo(0.15, 9);
    await t.http().put('/v1/tenant/settings/lifecycle').set(owner()).send({}).expect(200);
    const card = await t.http().get(`/v1/memory/${res.body.id}/retention`).set(asUser(f)).expect(200);
    expect(card.body.strength_days).toBeCloseTo(10.5, 9);
  });

  it('an expired memory stored again, or its expiry cleared, is back in the vector index at once', async () => {
    const g = await createTenant(t, 'revived');
    const write = (body: Record<string, unknown>) => t.http().post('/v1/memory').set(asAgent(g)).send({ category: 'note', content: 'The spare key is under the blue flowerpot', ...body });
    const first = await write({ key: 'spare_key', expires_at: new Date(clock.now().getTime() + HOUR).toISOString() }).expect(201);
    const second = await write({ key: 'spare_key_too', content: 'A copy of the spare key hangs in the garage', expires_at: new Date(clock.now().getTime() + HOUR).toISOString() }).expect(201);
    clock.advance(2 * HOUR);
    // The forgetting sweep takes expired memories out of the vector index.
    expect(await t.app.get(ForgettingJob).run(g.tenantId, clock.now())).toMatchObject({ expired: 2 });
    const status = async (id: string) => (await t.http().get(`/v1/memory/${id}`).set(asAgent(g)).expect(200)).body.embedding_status;
    expect(await status(first.body.id)).toBe('archived');
    // Stored again without expires_at: back, with the vector the write computes.
    await write({ key: 'spare_key' }).expect(200);
    expect(await status(first.body.id)).toBe('ready');
    // Its expiry cleared by id: back, waiting for the backfill's vector.
    await t.http().put(`/v1/memory/${second.body.id}`).set(asAgent(g)).send({ expires_at: null }).expect(200);
    expect(await status(second.body.id)).toBe('pending');
    const hits = await t.http().get('/v1/memory/search').query({ q: 'where is the spare key', mode: 'vector' }).set(asAgent(g)).expect(200);
    expect(hits.body.items.map((m: { key: string }) => m.key)).toContain('spare_key');
  });
});

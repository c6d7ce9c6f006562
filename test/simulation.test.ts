import { Client } from 'pg';
import { ManualClock } from '@engram/config';
import { ForgettingJob } from '@engram/jobs';
import { DEFAULT_LIFECYCLE, classifyLayer, layerStrengthDays, retentionAt, reviewIntervalsHours } from '@engram/memory';
import { AccessRecorder } from '@engram/services';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

const DAY = 86_400_000;
const FRUITS = ['pears', 'apples', 'plums', 'figs', 'dates', 'limes', 'kiwis', 'mangos', 'grapes', 'melons', 'cherries'];
const PLACES = ['market', 'harbour', 'library', 'station', 'garden', 'museum', 'bakery'];
const VERBS = ['bought', 'painted', 'counted', 'sorted', 'weighed'];

// 90 simulated days of one user: four messages a day of known importance go through the
// conversation stream and are saved to long-term memory; some memories are read every other
// day; the forgetting sweep runs at the end of each day. The database must then hold exactly
// what the formulas of docs/design.md §5 say.
describe('90-day simulation on an injectable clock', () => {
  let t: TestApp;
  let f: TenantFixture;
  let owner: Client;
  const start = Date.parse('2026-01-01T08:00:00Z');
  const clock = new ManualClock(new Date(start));

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    f = await createTenant(t, 'simulation');
    owner = new Client({ connectionString: t.db.ownerUrl });
    await owner.connect();
  });
  afterAll(async () => {
    await owner.end();
    await t.close();
  });

  it('forgets what the curve says, reinforces and promotes what is used, never forgets the critical', async () => {
    const sweep = t.app.get(ForgettingJob);
    const plan = [
      { kind: 'low', importance: 0.2 },
      { kind: 'mid', importance: 0.65 },
      { kind: 'used', importance: 0.65 },
      { kind: 'high', importance: 0.9 },
    ] as const;
    const accessed = new Set<string>();
    const sweeps: number[] = [];
    let messages = 0;

    // A critical memory of low importance, stored on day 0: pinned against decay.
    const critical = await t
      .http()
      .post('/v1/memory')
      .set(asAgent(f))
      .send({ category: 'identity', key: 'user_name', content: 'The user is Dana Kim', importance: 0.2, priority: 'critical' })
      .expect(201);

    for (let day = 0; day < 90; day++) {
      clock.set(new Date(start + day * DAY));
      const batch = plan.map((p, i) => ({
        speaker: 'Dana',
        content: `Day ${day} ${p.kind} note ${i}: Dana ${VERBS[(day + i) % VERBS.length]} ${day * 4 + i + 2} ${FRUITS[(day * 4 + i) % FRUITS.length]} at the ${PLACES[(day * 3 + i) % PLACES.length]}`,
        importance: p.importance,
      }));
      await t.http().post(`/v1/conversations/day-${day}/messages`).set(asAgent(f)).send({ messages: batch }).expect(201);
      messages += batch.length;
      const saved = await t.http().post(`/v1/conversations/day-${day}/consolidate`).set(asAgent(f)).expect(200);
      expect(saved.body.consolidated).toHaveLength(4);
      expect(saved.body.consolidated.map((c: { status: string }) => c.status)).toEqual(['created', 'created', 'created', 'created']);
      accessed.add(saved.body.consolidated[2].memory_id);

      // Midday: the user's agent reads the "used" memories every other day.
      clock.set(new Date(start + day * DAY + 6 * 3_600_000));
      if (day % 2 === 0) {
        for (const id of accessed) await t.http().get(`/v1/memory/${id}`).set(asAgent(f)).expect(200);
      }
      clock.set(new Date(start + day * DAY + 16 * 3_600_000));
      await sweep.run(f.tenantId, clock.now());
      sweeps.push(clock.now().getTime());
    }
    expect(messages).toBe(360);

    const { rows } = await owner.query<{
      id: string;
      content: string;
      importance_score: number;
      layer: string;
      strength_days: number;
      occurred_at: Date;
      forgotten_at: Date | null;
      access_count: number;
      review_count: number;
      current_retention: number;
    }>(`select id, content, importance_score, layer, strength_days, occurred_at, forgotten_at, access_count, review_count, current_retention
        from memories where tenant_id = $1`, [f.tenantId]);
    expect(rows).toHaveLength(361);

    const kindOf = (content: string) => /Day \d+ (\w+) note/.exec(content)?.[1];
    // Without accesses, the first sweep at which R(t) = i·e^(−Δt/(24·S)) < 0.3 forgets it;
    // S is the layer's strength × 1.5 (synaptic consolidation).
    const expectedForgetting = (importance: number, born: number) => {
      const s = layerStrengthDays(classifyLayer(importance, DEFAULT_LIFECYCLE), DEFAULT_LIFECYCLE) * 1.5;
      const at = sweeps.find((sw) => sw >= born && retentionAt({ retention: importance, at: new Date(born) }, s, new Date(sw)) < 0.3);
      return at === undefined ? null : new Date(at).toISOString();
    };

    let checked = 0;
    for (const row of rows) {
      const kind = kindOf(row.content);
      if (kind === 'low' || kind === 'mid' || kind === 'high') {
        expect({ id: row.id, kind, forgotten_at: row.forgotten_at?.toISOString() ?? null }).toEqual({
          id: row.id,
          kind,
          forgotten_at: expectedForgetting(row.importance_score, row.occurred_at.getTime()),
        });
        checked += 1;
      }
    }
    expect(checked).toBe(270);

    const low = rows.filter((r) => kindOf(r.content) === 'low');
    const mid = rows.filter((r) => kindOf(r.content) === 'mid');
    const high = rows.filter((r) => kindOf(r.content) === 'high');
    const used = rows.filter((r) => kindOf(r.content) === 'used');
    // Initial retention 0.2 is already under 0.3: each low memory goes at its first sweep.
    expect(low.every((r) => r.forgotten_at !== null && r.forgotten_at.getTime() - r.occurred_at.getTime() < DAY)).toBe(true);
    // Mid memories (short_term, S = 15.75 d) last about 12.2 days without use: the last dozen days' remain.
    expect(mid.filter((r) => r.forgotten_at === null)).toHaveLength(12);
    // High ones (long_term, S = 135 d) outlive the 90 days.
    expect(high.every((r) => r.forgotten_at === null && r.layer === 'long_term')).toBe(true);
    // Used ones are reinforced by due reviews, promoted to long_term, and never forgotten (the
    // one saved on day 89 was never read: reads happen on even days).
    const read = used.filter((r) => r.access_count > 0);
    expect(read).toHaveLength(89);
    expect(read.every((r) => r.forgotten_at === null && r.layer === 'long_term')).toBe(true);
    const oldUsed = used.filter((r) => r.occurred_at.getTime() < start + 30 * DAY);
    expect(oldUsed.every((r) => r.review_count >= 3 && r.access_count >= 30)).toBe(true);
    const oldMid = mid.filter((r) => r.occurred_at.getTime() < start + 30 * DAY);
    expect(Math.min(...oldUsed.map((r) => r.current_retention))).toBeGreaterThan(0.3);
    expect(oldMid.every((r) => r.forgotten_at !== null && r.layer === 'short_term')).toBe(true);
    // The critical memory's retention is long gone, yet it is pinned.
    const pinned = rows.find((r) => r.id === critical.body.id);
    expect(pinned?.forgotten_at).toBeNull();
    expect(retentionAt({ retention: 0.2, at: pinned!.occurred_at }, 1.5, clock.now())).toBeLessThan(1e-10);

    // Forgotten memories are out of recall but still found by search; being found is an access,
    // and an access to a memory older than 24 h promotes it, which restores it (docs/design.md §5).
    const recall = await t.http().get('/v1/memory/recall').query({ limit: 1000 }).set(asAgent(f)).expect(200);
    expect(recall.text).not.toContain(' low note ');
    expect(recall.text).toContain('Day 89 high note');
    const lost = low.find((r) => r.content.startsWith('Dana: Day 3 low note 0:'));
    expect(lost?.forgotten_at).not.toBeNull();
    const search = await t.http().get('/v1/memory/search').query({ q: lost?.content.replace(/[^\w ]/g, ' '), mode: 'all', limit: 100 }).set(asAgent(f)).expect(200);
    const found = search.body.items.find((m: { id: string }) => m.id === lost?.id);
    expect(found).toMatchObject({ forgotten_at: null, layer: 'short_term' });
    // 360 messages, 90 consolidations and 90 sweeps: minutes on a loaded CI machine.
  }, 240_000);

  // Reinforcement that holds (docs/lifecycle.md "Reinforcement"): each route by which a memory used
  // to be forgotten again at the very next sweep, on the same clock.
  describe('reinforcement that holds', () => {
    type Row = { forgotten_at: Date | null; next_review: Date | null; layer: string; current_retention: number; review_schedule: Date[]; access_count: number };
    // The table as the API's waiting accesses (written behind, ACCESS_FLUSH_MS) leave it.
    const row = async (id: string) =>
      (await t.app.get(AccessRecorder).flush(), await owner.query<Row>('select forgotten_at, next_review, layer, current_retention, review_schedule, access_count from memories where id = $1', [id])).rows[0] as Row;
    const at = (ms: number) => {
      clock.set(new Date(ms));
      return clock.now();
    };
    const sweepAt = async (tenantId: string, ms: number) => t.app.get(ForgettingJob).run(tenantId, at(ms));
    const store = async (g: TenantFixture, key: string, importance: number) =>
      (await t.http().post('/v1/memory').set(asAgent(g)).send({ category: 'fact', key, content: `The user said ${key}`, importance }).expect(201)).body.id as string;
    // Sweeps from `from` to `to` (every 10 minutes, or 60 sweeps in all when that is longer, and one
    // at `to`): the first instant (ms) at which the memory is forgotten, if any.
    const forgottenBetween = async (tenantId: string, id: string, from: number, to: number) => {
      const step = Math.max(600_000, (to - from) / 60);
      const instants: number[] = [];
      for (let ms = from; ms < to; ms += step) instants.push(ms);
      if (to >= from) instants.push(to);
      for (const ms of instants) {
        await sweepAt(tenantId, ms);
        if ((await row(id)).forgotten_at) return ms;
      }
      return null;
    };

    it('a new memory is not forgotten before its first review slot has passed unreviewed', async () => {
      const g = await createTenant(t, 'grace');
      const born = clock.now().getTime() + DAY;
      at(born);
      // Importance 0.25: retention starts under the 0.3 threshold.
      const id = await store(g, 'grace_low', 0.25);
      const first = (await row(id)).review_schedule[0] as Date;
      expect(first.getTime() - born).toBeCloseTo(3_600_000 * (1 - 0.25 * 0.3), -3);
      expect(await forgottenBetween(g.tenantId, id, born + 300_000, first.getTime() - 1)).toBeNull();
      await sweepAt(g.tenantId, first.getTime() + 60_000);
      expect((await row(id)).forgotten_at).not.toBeNull();
    });

    it('a read of a soft-forgotten memory revives it until its next review slot (calibrated and seed presets)', async () => {
      for (const preset of ['calibrated', 'seed'] as const) {
        const g = await createTenant(t, `revive-${preset}`);
        await t.http().put('/v1/tenant/settings/lifecycle').set({ Authorization: `Bearer ${g.token}` }).send({ retention: { preset } }).expect(200);
        const born = clock.now().getTime() + DAY;
        at(born);
        // A long-term memory: under the seed preset (S = 0.2 d) it falls under 0.3 in about a day.
        const id = await store(g, `fact_${preset}`, 0.9);
        const forgotten = await forgottenBetween(g.tenantId, id, born + 600_000, born + 400 * DAY);
        expect(forgotten).not.toBeNull();
        const read = at((forgotten as number) + 3_600_000).getTime();
        const got = await t.http().get(`/v1/memory/${id}`).set(asAgent(g)).expect(200);
        expect(got.body.forgotten_at).toBeNull();
        const after = await row(id);
        expect(after.current_retention).toBeGreaterThanOrEqual(0.3);
        // With its schedule used up, the horizon is the schedule's longest interval.
        const horizon = after.next_review ? after.next_review.getTime() : read + Math.max(...reviewIntervalsHours(0.9, DEFAULT_LIFECYCLE)) * 3_600_000;
        // Not forgotten at any sweep before its next review slot.
        expect(await forgottenBetween(g.tenantId, id, read + 600_000, horizon - 1)).toBeNull();
      }
    });

    it('saving a soft-forgotten fact again, or editing it, revives it, as a read does, and recall shows it again', async () => {
      const g = await createTenant(t, 'resave');
      const born = clock.now().getTime() + DAY;
      at(born);
      const id = await store(g, 'resaved_fact', 0.25);
      const edited = await store(g, 'edited_fact', 0.25);
      const forgotten = await forgottenBetween(g.tenantId, id, born + 600_000, born + 3 * DAY);
      expect(forgotten).not.toBeNull();
      at((forgotten as number) + 60_000);
      expect((await row(edited)).forgotten_at).not.toBeNull();
      // An edit of another field is a use of it too.
      await t.http().put(`/v1/memory/${edited}`).set(asAgent(g)).send({ priority: 'high' }).expect(200);
      expect((await row(edited)).forgotten_at).toBeNull();
      expect((await t.http().get('/v1/memory/recall').set(asAgent(g)).expect(200)).text).not.toContain('resaved_fact');
      // The same body again: unchanged, and no new version, but no longer forgotten.
      const again = await t.http().post('/v1/memory').set(asAgent(g)).send({ category: 'fact', key: 'resaved_fact', content: 'The user said resaved_fact', importance: 0.25 }).expect(200);
      expect(again.body).toMatchObject({ version: 1, forgotten_at: null });
      const after = await row(id);
      expect(after.forgotten_at).toBeNull();
      expect(after.current_retention).toBeGreaterThanOrEqual(0.3);
      expect((await t.http().get('/v1/memory/recall').set(asAgent(g)).expect(200)).text).toContain('resaved_fact');
    });

    it('promotion on the third access clears forgetting only with retention over the threshold, and it lasts', async () => {
      const g = await createTenant(t, 'promote');
      const born = clock.now().getTime() + DAY;
      at(born);
      const id = await store(g, 'promoted_fact', 0.25);
      let cursor = born;
      for (let access = 1; access <= 3; access++) {
        const forgotten = await forgottenBetween(g.tenantId, id, cursor + 600_000, cursor + 3 * DAY);
        expect({ access, forgotten: forgotten !== null }).toEqual({ access, forgotten: true });
        cursor = at((forgotten as number) + 60_000).getTime();
        const got = await t.http().get(`/v1/memory/${id}`).set(asAgent(g)).expect(200);
        expect(got.body.forgotten_at).toBeNull();
        const after = await row(id);
        expect(after.current_retention).toBeGreaterThanOrEqual(0.3);
        if (access < 3) expect(after.layer).toBe('working');
        else expect(after.layer).toBe('short_term');
        const horizon = after.next_review ? after.next_review.getTime() : cursor + Math.max(...reviewIntervalsHours(0.25, DEFAULT_LIFECYCLE)) * 3_600_000;
        expect(await forgottenBetween(g.tenantId, id, cursor + 600_000, horizon - 1)).toBeNull();
        cursor = horizon - 1;
      }
    });
  });
});

import fc from 'fast-check';
import { MEMORY_LAYERS, MEMORY_PRIORITIES } from '../memory.constants';
import { applyAccess, applyRepetition, currentRetention, revivalHorizonHours, type RetentionState } from './access';
import { encodeLifecycle } from './encode';
import { softForgets } from './forgetting';
import { consolidationScore } from './consolidation';
import { layerRank } from './layers';
import { DEFAULT_LIFECYCLE, resolveLifecycle, type LifecycleConfig } from './lifecycle-config';
import { layerStrengthDays } from './retention';
import { reviewIntervalsHours, reviewSchedule } from './review';
import { admitToStm, entryStrength, type StmEntry } from './stm';
import { tierOf } from './tiers';

const presets: LifecycleConfig[] = (['seed', 'calibrated'] as const).map((preset) => {
  const r = resolveLifecycle({ retention: { preset } });
  if (!r.success) throw r.error;
  return r.data;
});

const T0 = new Date('2026-01-01T00:00:00Z').getTime();
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const hours = (max: number) => fc.double({ min: 0, max, noNaN: true });

const arbState = fc
  .record({
    config: fc.constantFrom(...presets),
    importance: unit,
    layer: fc.constantFrom(...MEMORY_LAYERS),
    priority: fc.constantFrom(...MEMORY_PRIORITIES),
    retention: unit,
    anchorHours: hours(2000),
    access: fc.nat(1000),
    reviews: fc.nat(5),
    forgotten: fc.boolean(),
  })
  .map(({ config, importance, layer, priority, retention, anchorHours, access, reviews, forgotten }) => {
    const born = new Date(T0);
    const schedule = reviewSchedule(born, importance, config);
    const state: RetentionState = {
      importance_score: importance,
      layer,
      priority,
      current_retention: retention,
      retention_at: new Date(T0 + anchorHours * 3_600_000),
      strength_days: layerStrengthDays(layer, config),
      access_count: access,
      last_accessed: null,
      last_reviewed: born,
      review_schedule: schedule,
      next_review: schedule[reviews] ?? null,
      review_count: reviews,
      forgotten_at: forgotten ? born : null,
      event_at: born,
    };
    return { config, state };
  });

describe('lifecycle properties (fast-check)', () => {
  it('retention stays in [0,1] and never rises without an access', () => {
    fc.assert(
      fc.property(arbState, hours(5000), hours(5000), ({ config, state }, a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        const r1 = currentRetention(state, new Date(T0 + early * 3_600_000), config);
        const r2 = currentRetention(state, new Date(T0 + late * 3_600_000), config);
        expect(r1).toBeGreaterThanOrEqual(0);
        expect(r1).toBeLessThanOrEqual(1);
        expect(r2).toBeLessThanOrEqual(r1);
      }),
    );
  });

  it('an access never lowers retention, and promotion never demotes', () => {
    fc.assert(
      fc.property(arbState, hours(5000), ({ config, state }, at) => {
        const now = new Date(T0 + at * 3_600_000);
        const before = currentRetention(state, now, config);
        const after = applyAccess(state, now, config);
        expect(after.current_retention).toBeGreaterThanOrEqual(before);
        expect(after.current_retention).toBeLessThanOrEqual(1);
        expect(layerRank(after.layer)).toBeGreaterThanOrEqual(layerRank(state.layer));
        expect(after.access_count).toBe(state.access_count + 1);
        expect(after.review_count - state.review_count).toBeGreaterThanOrEqual(0);
        expect(after.review_count - state.review_count).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('review intervals increase and respect the 0.5 h floor', () => {
    fc.assert(
      fc.property(unit, fc.constantFrom(...presets), (importance, config) => {
        const intervals = reviewIntervalsHours(importance, config);
        intervals.forEach((h, i) => {
          expect(h).toBeGreaterThanOrEqual(0.5);
          if (i > 0) expect(h).toBeGreaterThan(intervals[i - 1] as number);
        });
      }),
    );
  });

  it('the consolidation score stays in [0,1] and grows with each signal', () => {
    fc.assert(
      fc.property(unit, unit, unit, unit, unit, unit, (repetition, importance, emotion, association, utility, bump) => {
        const base = { repetition, importance, emotion, association, utility };
        const s = consolidationScore(base, DEFAULT_LIFECYCLE);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(consolidationScore({ ...base, importance: Math.min(1, importance + bump) }, DEFAULT_LIFECYCLE)).toBeGreaterThanOrEqual(s);
      }),
    );
  });

  it('more accesses never put a memory in a colder tier', () => {
    const order = ['archive', 'cold', 'warm', 'hot'];
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), hours(24 * 400), (a, b, ageHours) => {
        const now = new Date(T0 + ageHours * 3_600_000);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(order.indexOf(tierOf(hi, new Date(T0), now, DEFAULT_LIFECYCLE))).toBeGreaterThanOrEqual(
          order.indexOf(tierOf(lo, new Date(T0), now, DEFAULT_LIFECYCLE)),
        );
      }),
    );
  });

  it('the STM buffer never exceeds its capacity, and what leaves is the weakest', () => {
    const arbEntry = fc.record({
      content: fc.constantFrom('a b', 'call mom tomorrow', 'the deploy failed again', 'I love jazz', 'meeting at 3 pm', 'x'),
      speaker: fc.constantFrom('ann', 'bob', null),
      importance: unit,
      emotion: unit,
      utility: unit,
      ageMinutes: fc.nat(29),
    });
    fc.assert(
      fc.property(fc.array(arbEntry, { minLength: 1, maxLength: 30 }), fc.integer({ min: 5, max: 9 }), (items, capacity) => {
        const config = { ...DEFAULT_LIFECYCLE, stm: { ...DEFAULT_LIFECYCLE.stm, capacity } };
        const now = new Date(T0 + 3_600_000);
        let buffer: StmEntry[] = [];
        let n = 0;
        for (const item of items) {
          const at = new Date(now.getTime() - item.ageMinutes * 60_000);
          const entry: StmEntry = {
            id: `e${n++}`,
            content: item.content,
            speaker: item.speaker,
            message_ids: [`m${n}`],
            importance: item.importance,
            emotion: item.emotion,
            association: 0,
            utility: item.utility,
            mentions: 1,
            rehearsal_count: 0,
            decay_factor: 0.85,
            entered_at: at,
            last_rehearsed_at: at,
            chunk: null,
          };
          const before = buffer;
          const result = admitToStm(buffer, entry, now, config, () => `c${n++}`);
          for (const { entry: out } of result.evicted) {
            const remaining = before.filter((e) => e.id !== out.id && result.buffer.some((b) => b.id === e.id));
            for (const other of remaining) expect(entryStrength(out, now, config)).toBeLessThanOrEqual(entryStrength(other, now, config));
          }
          buffer = result.buffer;
          expect(buffer.length).toBeLessThanOrEqual(capacity);
          expect(buffer[buffer.length - 1]?.id).toBe(entry.id);
        }
      }),
    );
  });

  // Reinforcement that holds (docs/lifecycle.md "Reinforcement"): the rules of issue 15.
  it('an access that finds a memory below the threshold keeps it at or above the threshold until its next review slot', () => {
    fc.assert(
      fc.property(arbState, hours(5000), ({ config, state }, at) => {
        const now = new Date(T0 + at * 3_600_000);
        const theta = config.forgetting.soft_threshold;
        if (currentRetention(state, now, config) >= theta) return;
        const after = applyAccess(state, now, config);
        const horizon = revivalHorizonHours(state, after.next_review, now, config);
        const until = new Date(now.getTime() + horizon * 3_600_000);
        expect(currentRetention(after, until, config)).toBeGreaterThanOrEqual(theta - 1e-9);
      }),
    );
  });

  it('an access clears forgetting exactly when it leaves retention at or above the threshold, promotion or not', () => {
    fc.assert(
      fc.property(arbState, hours(5000), ({ config, state }, at) => {
        const now = new Date(T0 + at * 3_600_000);
        const after = applyAccess(state, now, config);
        const restored = after.current_retention >= config.forgetting.soft_threshold;
        expect(after.forgotten_at).toEqual(state.forgotten_at === null || restored ? null : state.forgotten_at);
      }),
    );
  });

  it('a fact said four times outlives one said once', () => {
    fc.assert(
      fc.property(fc.constantFrom(...presets), fc.double({ min: 0.05, max: 0.95, noNaN: true }), fc.array(hours(48), { minLength: 3, maxLength: 3 }), hours(24 * 365), (config, importance, gaps, later) => {
        const born = new Date(T0);
        const once: RetentionState = { ...encodeLifecycle({ importance, bornAt: born }, config), priority: 'normal', access_count: 0, last_accessed: null, forgotten_at: null, event_at: born };
        let four = once;
        let t = T0;
        for (const gap of gaps) {
          t += gap * 3_600_000;
          four = applyRepetition(four, importance, new Date(t), config);
        }
        const end = new Date(t + later * 3_600_000);
        expect(currentRetention(four, end, config)).toBeGreaterThanOrEqual(currentRetention(once, end, config));
        expect(four.review_count).toBe(3);
      }),
    );
  });

  it('a repetition never lowers importance, layer or retention', () => {
    fc.assert(
      fc.property(arbState, unit, hours(5000), ({ config, state }, importance, at) => {
        const now = new Date(T0 + at * 3_600_000);
        const after = applyRepetition(state, importance, now, config);
        expect(after.importance_score).toBe(Math.max(state.importance_score, importance));
        expect(layerRank(after.layer)).toBeGreaterThanOrEqual(layerRank(state.layer));
        expect(after.current_retention).toBeGreaterThanOrEqual(currentRetention(state, now, config));
      }),
    );
  });

  it('a new memory is not soft-forgotten before its first review slot, whatever its retention', () => {
    fc.assert(
      fc.property(fc.constantFrom(...presets), unit, hours(200), (config, importance, at) => {
        const born = new Date(T0);
        const encoded = encodeLifecycle({ importance, bornAt: born }, config);
        const now = new Date(T0 + at * 3_600_000);
        const first = encoded.review_schedule[0] ?? null;
        const retention = currentRetention({ ...encoded, access_count: 0 }, now, config);
        const forgets = softForgets({ retention, priority: 'normal', forgotten_at: null, first_review: first }, now, config);
        if (first && now < first) expect(forgets).toBe(false);
        else expect(forgets).toBe(retention < config.forgetting.soft_threshold);
      }),
    );
  });
});

import { applyAccess, currentRetention, type RetentionState } from './access';
import { parseLlmImportance, scoreByRules, scoreByRulesAndFacts, weightedCriteria } from './importance';
import { classifyLayer } from './layers';
import { DEFAULT_LIFECYCLE, resolveLifecycle, type LifecycleConfig } from './lifecycle-config';
import { initialRetention, layerStrengthDays } from './retention';
import { reviewIntervalsHours, reviewSchedule } from './review';

const seedPreset = (): LifecycleConfig => {
  const r = resolveLifecycle({ retention: { preset: 'seed' } });
  if (!r.success) throw r.error;
  return r.data;
};

// Seed 001's worked example: "Q2 requirements review with the product team, meeting room B,
// next Friday 3 pm", scored 0.72 by the LLM.
describe('seed 001 worked example (importance 0.72)', () => {
  const config = seedPreset();

  it('is short_term, starts at retention 0.72, has strength 0.15 days under the seed preset', () => {
    expect(classifyLayer(0.72, config)).toBe('short_term');
    expect(initialRetention(0.72, config)).toBeCloseTo(0.72, 12);
    expect(layerStrengthDays('short_term', config)).toBeCloseTo(0.15, 12);
    expect(layerStrengthDays('working', config)).toBeCloseTo(0.05, 12);
    expect(layerStrengthDays('long_term', config)).toBeCloseTo(0.2, 12);
  });

  it('reviews at 0.784, 4.704, 18.816, 56.448, 131.712 hours', () => {
    const hours = reviewIntervalsHours(0.72, config);
    [0.784, 4.704, 18.816, 56.448, 131.712].forEach((h, i) => expect(hours[i]).toBeCloseTo(h, 9));
    const start = new Date('2026-01-02T15:00:00Z');
    expect(reviewSchedule(start, 0.72, config).map((d) => d.toISOString())).toEqual([
      '2026-01-02T15:47:02.400Z',
      '2026-01-02T19:42:14.400Z',
      '2026-01-03T09:48:57.600Z',
      '2026-01-04T23:26:52.800Z',
      '2026-01-08T02:42:43.200Z',
    ]);
  });

  it('a low-importance message (0.3) compresses its intervals only slightly (×0.91)', () => {
    expect(reviewIntervalsHours(0.3, config)[2]).toBeCloseTo(24 * 0.91, 9);
  });

  it('the LLM path reads importance_score from the six-dimension JSON', () => {
    const answer = `Here you go:
{"importance_score": 0.72, "reasoning": "Meeting schedule imposes a hard time constraint and clear action requirement",
 "criteria_scores": {"relevance": 0.8, "novelty": 0.5, "emotional_impact": 0.2, "actionable": 0.9, "factual": 0.8, "personal": 0.6}}`;
    expect(parseLlmImportance(answer, config)).toMatchObject({ score: 0.72, path: 'llm', criteria: { actionable: 0.9 } });
  });
});

describe('importance parsing falls back in three levels', () => {
  const config = DEFAULT_LIFECYCLE;
  it('JSON without importance_score: the weighted mean of the criteria present', () => {
    const r = parseLlmImportance('{"criteria_scores": {"relevance": 1, "novelty": 0}}', config);
    // weights 0.30 and 0.20 renormalised: (0.3·1 + 0.2·0) / 0.5
    expect(r?.path).toBe('llm');
    expect(r?.score).toBeCloseTo(0.6, 12);
    expect(weightedCriteria({ relevance: 0.8, novelty: 0.5, emotional_impact: 0.2, actionable: 0.9, factual: 0.8, personal: 0.6 }, config)).toBeCloseTo(0.645, 12);
  });
  it('broken JSON: a regex on the score field', () => {
    expect(parseLlmImportance('{"importance_score": 0.83, "reasoning": "unterminated', config)).toEqual({ score: 0.83, path: 'llm_regex' });
    expect(parseLlmImportance('importance_score = .4', config)).toEqual({ score: 0.4, path: 'llm_regex' });
  });
  it('nothing usable: undefined, so the caller uses the rule engine', () => {
    expect(parseLlmImportance('I think it is quite important.', config)).toBeUndefined();
    expect(parseLlmImportance('{"importance_score": "high"}', config)).toBeUndefined();
  });
  it('clamps out-of-range scores into 0..1', () => {
    expect(parseLlmImportance('{"importance_score": 7}', config)?.score).toBe(1);
  });
});

describe('rule engine (seed 001 §1.2)', () => {
  const config = DEFAULT_LIFECYCLE;
  it.each([
    // 33 chars; remember, password; "!"  → 0.1 + 0.1 + 0.05
    ['Remember: my password is hunter2!', {}, 0.25],
    // under 50 chars, no keyword, no punctuation
    ['Had lunch at noon.', {}, 0],
    // 56 chars (+0.05); "urgent" (+0.1); "?" (+0.05); priority high (+0.2)
    ['Is the urgent fix for the login page deployed to prod yet?', { priority: 'high' as const }, 0.4],
    // over 100 chars (+0.1); love, like (+0.2); critical priority counts as high (+0.2)
    ['I love hiking in the Alps and I would like to plan a trip there next summer with my sister and two of our friends', { priority: 'critical' as const }, 0.5],
    // "likely" is not the keyword "like"; "notes" is not "note"
    ['It will likely rain; take notes.', {}, 0],
    // Korean keywords match inside words: 중요 and 기억 (+0.2); "!" (+0.05)
    ['이건 중요해요, 꼭 기억해 주세요!', {}, 0.25],
    // many keywords cap at 1.0
    ['important critical urgent remember note preference like dislike hate love password secret', {}, 1],
  ])('%j %j → %d', (content, meta, expected) => {
    expect(scoreByRules(content, meta, config)).toBeCloseTo(expected, 9);
    // The service's rule path with every fact weight 0 is seed 001's rule engine exactly.
    const zero = { ...config, importance: { ...config.importance, facts: Object.fromEntries(Object.keys(config.importance.facts).map((k) => [k, 0])) as typeof config.importance.facts } };
    expect(scoreByRulesAndFacts(content, meta, zero)).toBeCloseTo(expected, 9);
  });
});

describe('access (docs/design.md §5)', () => {
  const config = seedPreset();
  const born = new Date('2026-01-02T15:00:00Z');
  const state: RetentionState = {
    importance_score: 0.72,
    layer: 'short_term',
    priority: 'normal',
    current_retention: 0.72,
    retention_at: born,
    strength_days: 0.15,
    access_count: 0,
    last_accessed: null,
    last_reviewed: born,
    review_schedule: reviewSchedule(born, 0.72, config),
    next_review: reviewSchedule(born, 0.72, config)[0] ?? null,
    review_count: 0,
    forgotten_at: null,
    event_at: born,
  };

  it('decays as exp(−Δt_h / (24·S)): after 3.6 h at S = 0.15 d, R = 0.72/e', () => {
    expect(currentRetention(state, new Date(born.getTime() + 3.6 * 3_600_000), config)).toBeCloseTo(0.72 / Math.E, 12);
  });

  it('an access before the first review counts, re-anchors, and (importance ≥ 0.6) promotes', () => {
    const at = new Date(born.getTime() + 30 * 60_000);
    const after = applyAccess(state, at, config);
    expect(after).toMatchObject({ access_count: 1, review_count: 0, layer: 'long_term', retention_at: at, last_accessed: at });
    expect(after.current_retention).toBeCloseTo(0.72 * Math.exp(-0.5 / 3.6), 12);
    expect(after.strength_days).toBeCloseTo(0.2, 12);
  });

  it('an access when a review is due reinforces: R + 0.3·(1 − R), and moves to the next slot', () => {
    const at = new Date(born.getTime() + 1 * 3_600_000);
    const r = 0.72 * Math.exp(-1 / 3.6);
    const after = applyAccess(state, at, config);
    expect(after.current_retention).toBeCloseTo(r + 0.3 * (1 - r), 12);
    expect(after.review_count).toBe(1);
    expect(after.last_reviewed).toEqual(at);
    expect(after.next_review).toEqual(state.review_schedule[1]);
  });
});

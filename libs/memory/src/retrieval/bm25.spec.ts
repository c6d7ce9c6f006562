import fc from 'fast-check';
import { DF_COUNT_CAP, MATCH_BUDGET, bm25Idf, bm25Term, estimatedDocumentFrequency, MATCH_FLOOR, matchBudget, matchLexemes, withDocumentFrequency, type TextStats } from './bm25';

describe('matchBudget (how many memories a query may match)', () => {
  it('is the share of the mind, rounded up, within MATCH_FLOOR..MATCH_BUDGET', () => {
    expect(matchBudget(419, 1)).toBe(419);
    expect(matchBudget(419, 0.1)).toBe(42);
    expect(matchBudget(1_000_000, 1)).toBe(MATCH_BUDGET);
    expect(matchBudget(5, 0.1)).toBe(MATCH_FLOOR);
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.double({ min: 1e-6, max: 1, noNaN: true }), (n, share) => {
        const b = matchBudget(n, share);
        expect(b).toBeGreaterThanOrEqual(MATCH_FLOOR);
        expect(b).toBeLessThanOrEqual(MATCH_BUDGET);
        expect(b).toBeGreaterThanOrEqual(Math.min(MATCH_BUDGET, share * n));
        // Monotone: a larger mind or share never lowers it.
        expect(matchBudget(n + 1, share)).toBeGreaterThanOrEqual(b);
        expect(matchBudget(n, Math.min(1, share * 2))).toBeGreaterThanOrEqual(b);
      }),
    );
  });
});

describe('matchLexemes (the lexemes full text matches on)', () => {
  it('takes the rarest lexemes while their memories fit the budget', () => {
    const df = new Map([['caroline', 400_000], ['lgbtq', 12], ['support', 900], ['group', 1500]]);
    expect(matchLexemes(['caroline', 'group', 'lgbtq', 'support'], df)).toEqual(['lgbtq', 'support']);
  });

  it('keeps the rarest lexeme even when it alone exceeds the budget', () => {
    expect(matchLexemes(['what', 'caroline'], new Map([['what', 90_000], ['caroline', 40_000]]))).toEqual(['caroline']);
    expect(matchLexemes([], new Map())).toEqual([]);
  });

  it('never exceeds the budget beyond the first lexeme, and always keeps the rarest', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.nat(50_000), { minKeys: 1, maxKeys: 12 }), (d) => {
        const df = new Map(Object.entries(d));
        const chosen = matchLexemes([...df.keys()], df);
        const rarest = Math.min(...df.values());
        expect(df.get(chosen[0] as string)).toBe(rarest);
        const total = chosen.reduce((a, l) => a + (df.get(l) ?? 0), 0);
        if (chosen.length > 1) expect(total).toBeLessThanOrEqual(MATCH_BUDGET);
        // Nothing left out that is rarer than something kept.
        const kept = new Set(chosen);
        const maxKept = Math.max(...chosen.map((l) => df.get(l) ?? 0));
        for (const [l, n] of df) if (!kept.has(l)) expect(n).toBeGreaterThanOrEqual(maxKept);
      }),
    );
  });
});

describe('BM25 statistics and weights', () => {
  it('idf is positive whenever df ≤ n, and falls as df grows', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), (a, b) => {
        const n = Math.max(a, b);
        const df = Math.min(a, b);
        expect(bm25Idf(n, df)).toBeGreaterThan(0);
        if (df > 0) expect(bm25Idf(n, df - 1)).toBeGreaterThan(bm25Idf(n, df));
      }),
    );
    // The classic value: a lexeme in 1 of 1000 memories.
    expect(bm25Idf(1000, 1)).toBeCloseTo(Math.log(1 + 999.5 / 1.5), 12);
  });

  it('a counted document frequency raises a stale mind size, so no idf turns negative', () => {
    const stats: TextStats = { n: 100, avgdl: 40, df: new Map() };
    withDocumentFrequency(stats, 'budget', 250);
    expect(stats).toEqual({ n: 250, avgdl: 40, df: new Map([['budget', 250]]) });
    expect(bm25Idf(stats.n, 250)).toBeGreaterThan(0);
    withDocumentFrequency(stats, 'dgia', 3);
    expect(stats.n).toBe(250);
  });

  it('an estimated document frequency is at least the counting cap and at most the mind', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: DF_COUNT_CAP, max: 10_000_000 }), (share, n) => {
        const df = estimatedDocumentFrequency(share, n);
        expect(df).toBeGreaterThanOrEqual(DF_COUNT_CAP);
        expect(df).toBeLessThanOrEqual(n);
      }),
    );
  });

  it('a term weighs more with more occurrences and less in a longer memory (k1 = 1.2, b = 0.75)', () => {
    const idf = bm25Idf(1000, 10);
    expect(bm25Term(idf, 2, 100, 100, 1.2, 0.75)).toBeGreaterThan(bm25Term(idf, 1, 100, 100, 1.2, 0.75));
    expect(bm25Term(idf, 1, 400, 100, 1.2, 0.75)).toBeLessThan(bm25Term(idf, 1, 100, 100, 1.2, 0.75));
    // At the mean length one occurrence weighs exactly idf.
    expect(bm25Term(idf, 1, 100, 100, 1.2, 0.75)).toBeCloseTo(idf, 12);
  });
});

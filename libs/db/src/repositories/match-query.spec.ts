import fc from 'fast-check';
import { MATCH_BUDGET, matchQuery } from './retrieval.repository';

const lexemes = (q: string | null) => (q === null ? [] : q.split(' | ').map((l) => l.slice(1, -1).replace(/''/g, "'")));

describe('matchQuery (the lexemes full text matches on)', () => {
  it('takes the rarest lexemes while their memories fit the budget', () => {
    const df = new Map([['caroline', 400_000], ['lgbtq', 12], ['support', 900], ['group', 1500]]);
    expect(lexemes(matchQuery(['caroline', 'group', 'lgbtq', 'support'], df))).toEqual(['lgbtq', 'support']);
  });

  it('keeps the rarest lexeme even when it alone exceeds the budget', () => {
    expect(lexemes(matchQuery(['what', 'caroline'], new Map([['what', 90_000], ['caroline', 40_000]])))).toEqual(['caroline']);
  });

  it('quotes lexemes so that any character is taken literally', () => {
    expect(matchQuery(["o'brien", 'a\\b'], new Map())).toBe("'a\\\\b' | 'o''brien'");
    expect(matchQuery([], new Map())).toBeNull();
  });

  it('never exceeds the budget beyond the first lexeme, and always keeps the rarest', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.nat(50_000), { minKeys: 1, maxKeys: 12 }), (d) => {
        const df = new Map(Object.entries(d));
        const chosen = lexemes(matchQuery([...df.keys()], df));
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

import fc from 'fast-check';
import { ASSOCIATION_PAIRS, linkBudget } from './association.job';

describe('linkBudget', () => {
  it('keeps an exact pass within the pairs budget, links at least one, never more than wait', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 5_000_000 }), (waiting, mindSize) => {
        const n = linkBudget(waiting, mindSize, true);
        expect(n).toBeGreaterThanOrEqual(1);
        expect(n).toBeLessThanOrEqual(waiting);
        if (n > 1) expect(n * mindSize).toBeLessThanOrEqual(ASSOCIATION_PAIRS);
      }),
    );
  });

  it('links a whole batch in a small mind or through HNSW', () => {
    expect(linkBudget(200, 1000, true)).toBe(200);
    expect(linkBudget(200, 3500, true)).toBe(57);
    expect(linkBudget(200, 50_000, false)).toBe(200);
  });
});

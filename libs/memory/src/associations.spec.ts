import fc from 'fast-check';
import { DEFAULT_LIFECYCLE, type LifecycleConfig } from './lifecycle/lifecycle-config';
import { ASSOCIATION_RELATIONS, associationStrength, entityWeight, generalisationLinks, inverseRelation, namedThings, temporalWeight } from './associations';
import { rankHybrid, type Candidate } from './retrieval/hybrid-rank';

describe('namedThings', () => {
  it('finds the names a memory mentions, runs of capitals as one, lower-cased', () => {
    expect(namedThings('Caroline: I went to the LGBTQ support group in New York with Melanie yesterday.')).toEqual(['lgbtq', 'new york', 'melanie']);
  });

  it('leaves out the speaker label, pronouns, greetings, weekdays and months', () => {
    expect(namedThings('Melanie: Wow, Thanks! I think we met on Monday in May.')).toEqual([]);
    expect(namedThings("Hey Jon, that's Gina's bakery")).toEqual(['jon', 'gina']);
  });

  it('counts the tags as named things', () => {
    expect(namedThings('approved the budget', ['DGIA', ' budget '])).toEqual(['dgia', 'budget']);
  });

  it('gives at most 20 names, each at most 100 characters', () => {
    const text = Array.from({ length: 40 }, (_, i) => `and Name${i}`).join(' ');
    expect(namedThings(text)).toHaveLength(20);
    fc.assert(fc.property(fc.string({ maxLength: 500 }), fc.array(fc.string({ maxLength: 200 }), { maxLength: 5 }), (t, tags) => namedThings(t, tags).every((n) => n.length >= 2 && n.length <= 100 && n === n.toLowerCase())));
  });
});

describe('link weights', () => {
  it('a name two memories share in a large mind weighs nearly 1; one in every memory 0', () => {
    expect(entityWeight(2, 1000)).toBeCloseTo(1 - Math.log(2) / Math.log(1000), 12);
    expect(entityWeight(1000, 1000)).toBe(0);
    expect(entityWeight(1, 1)).toBe(0);
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 2, max: 10_000 }), (df, n) => {
      const w = entityWeight(Math.min(df, n), n);
      return w >= 0 && w <= 1 && (df >= n || entityWeight(Math.min(df + 1, n), n) <= w);
    }));
  });

  it('the nearest memory in a conversation weighs 1 / gap', () => {
    expect(temporalWeight(1)).toBe(1);
    expect(temporalWeight(4)).toBe(0.25);
    expect(temporalWeight(0)).toBe(0);
  });

  it('association strength is the mean of the three strongest links (missing ones 0)', () => {
    expect(associationStrength([])).toBe(0);
    expect(associationStrength([0.9])).toBeCloseTo(0.3, 12);
    expect(associationStrength([0.2, 0.9, 0.6, 0.3])).toBeCloseTo((0.9 + 0.6 + 0.3) / 3, 12);
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true })), (ws) => associationStrength(ws) >= 0 && associationStrength(ws) <= 1));
  });

  it('every relation has an inverse whose inverse is itself', () => {
    for (const r of ASSOCIATION_RELATIONS) expect(inverseRelation(inverseRelation(r))).toBe(r);
    expect(inverseRelation('precedes')).toBe('follows');
    expect(inverseRelation('causes')).toBe('effects');
    expect(inverseRelation('similar_to')).toBe('similar_to');
  });
});

describe('generalisationLinks', () => {
  const E1 = '0190a000-0000-7000-8000-000000000001';
  const E2 = '0190a000-0000-7000-8000-000000000002';
  const S = '0190a000-0000-7000-8000-00000000000a';

  it("reads a semantic memory's episodes and an episode's semantic memory, as what the other memory is to this one", () => {
    expect(generalisationLinks({ generalises: [E1, E2] })).toEqual([
      { memory_id: E1, relation: 'generalised_into' },
      { memory_id: E2, relation: 'generalised_into' },
    ]);
    expect(generalisationLinks({ generalised_into: S })).toEqual([{ memory_id: S, relation: 'generalises' }]);
    expect(generalisationLinks({})).toEqual([]);
  });

  it('leaves out what is not an id (an import may bring any object), repeats and the memory itself', () => {
    expect(generalisationLinks({ generalises: [E1, E1.toUpperCase(), 'x', 5, null, { id: E2 }, S], generalised_into: ['not', 'a string'] }, S)).toEqual([
      { memory_id: E1, relation: 'generalised_into' },
    ]);
    expect(generalisationLinks({ generalises: E1, generalised_into: 42 })).toEqual([]);
    for (const graph of [null, [E1], E1, 5]) expect(generalisationLinks(graph)).toEqual([]);
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (graph) => generalisationLinks(graph).every((l) => /^[0-9a-f-]{36}$/.test(l.memory_id))));
  });
});

describe('rankHybrid with the association graph (docs/design.md §6.8)', () => {
  const base: Omit<Candidate, 'id'> = { temporal_context: null, temporal_position: null, tags: [], retention: 1, importance: 0.5, priority: 'normal', forgotten: false };
  const cand = (id: string, over: Partial<Candidate> = {}): Candidate => ({ id, ...base, ...over });
  const config: LifecycleConfig = DEFAULT_LIFECYCLE;

  it('a memory no branch found ranks through its link to a hit, and says so', () => {
    const candidates = [cand('hit', { bm25: 4 }), cand('other', { bm25: 1 }), cand('linked')];
    const links = [{ source: 'hit', target: 'linked', relation: 'shares_entity' as const, weight: 0.8 }];
    const without = rankHybrid(candidates, 'q', config);
    expect(without.map((h) => h.id)).toEqual(['hit', 'other']);
    const withLinks = rankHybrid(candidates, 'q', config, Infinity, links);
    const linked = withLinks.find((h) => h.id === 'linked');
    // It takes weight × link weight × the hit's BM25: 0.3 × 0.8 × 4 = 0.96 < 1, so after `other`.
    expect(linked?.explain.text.smoothed).toBeCloseTo(config.associations.weights.shares_entity * 0.8 * 4, 12);
    expect(withLinks.map((h) => h.id)).toEqual(['hit', 'other', 'linked']);
    expect(linked?.explain.associations).toEqual([{ from: 'hit', relation: 'shares_entity', weight: 0.8 }]);
    expect(withLinks.find((h) => h.id === 'hit')?.explain.associations).toEqual([]);
  });

  it('a relation weighted 0 and a link from a memory without score bring nothing', () => {
    const zero: LifecycleConfig = { ...config, associations: { ...config.associations, weights: { ...config.associations.weights, similar_to: 0 } } };
    const candidates = [cand('hit', { bm25: 4 }), cand('linked'), cand('cold')];
    expect(rankHybrid(candidates, 'q', zero, Infinity, [{ source: 'hit', target: 'linked', relation: 'similar_to', weight: 1 }]).map((h) => h.id)).toEqual(['hit']);
    expect(rankHybrid(candidates, 'q', config, Infinity, [{ source: 'cold', target: 'linked', relation: 'similar_to', weight: 1 }]).map((h) => h.id)).toEqual(['hit']);
  });

  it('one hop only: a memory reached through a link passes nothing on', () => {
    const candidates = [cand('hit', { bm25: 4 }), cand('a'), cand('b')];
    const links = [
      { source: 'hit', target: 'a', relation: 'similar_to' as const, weight: 1 },
      { source: 'a', target: 'b', relation: 'similar_to' as const, weight: 1 },
    ];
    expect(rankHybrid(candidates, 'q', config, Infinity, links).map((h) => h.id)).toEqual(['hit', 'a']);
  });
});

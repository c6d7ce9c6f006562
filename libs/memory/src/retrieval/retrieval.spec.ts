import fc from 'fast-check';
import { MEMORY_PRIORITIES } from '../memory.constants';
import { DEFAULT_LIFECYCLE, type LifecycleConfig } from '../lifecycle/lifecycle-config';
import { placelessFactor, rankHybrid, type Candidate } from './hybrid-rank';

const base: Omit<Candidate, 'id'> = {
  temporal_context: null,
  temporal_position: null,
  tags: [],
  retention: 1,
  importance: 0.5,
  priority: 'normal',
  forgotten: false,
};
const cand = (id: string, over: Partial<Candidate> = {}): Candidate => ({ id, ...base, ...over });
const config: LifecycleConfig = DEFAULT_LIFECYCLE;
const r = config.retrieval;

describe('rankHybrid (docs/design.md §6)', () => {
  it('fuses ranks by RRF with k = 10 (retrieval.rrf_k) and the branch weights', () => {
    const hits = rankHybrid([cand('a', { bm25: 5, distance: 0.2 }), cand('b', { bm25: 3 }), cand('c', { distance: 0.1 })], 'q', config);
    const byId = new Map(hits.map((h) => [h.id, h]));
    // a: text rank 1, vector rank 2; b: text rank 2; c: vector rank 1.
    expect(r.rrf_k).toBe(10);
    expect(byId.get('a')!.explain.rrf).toBeCloseTo(r.text_weight / (10 + 1) + r.vector_weight / (10 + 2), 12);
    expect(byId.get('b')!.explain.rrf).toBeCloseTo(r.text_weight / (10 + 2), 12);
    expect(byId.get('c')!.explain.rrf).toBeCloseTo(r.vector_weight / (10 + 1), 12);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(byId.get('a')!.explain).toMatchObject({ text: { bm25: 5, rank: 1 }, vector: { distance: 0.2, rank: 2 } });
    expect(byId.get('b')!.explain.vector).toMatchObject({ distance: null, rank: null });
  });

  it('weights the fused score by retention, importance, priority and forgetting', () => {
    const [hit] = rankHybrid([cand('a', { bm25: 1, retention: 0.5, importance: 0.9, priority: 'critical', forgotten: true })], 'q', config);
    const e = hit!.explain;
    expect(e.retention_factor).toBeCloseTo(1 - r.retention_weight + r.retention_weight * 0.5, 12);
    expect(e.importance_factor).toBeCloseTo(1 - r.importance_weight + r.importance_weight * 0.9, 12);
    expect(e.priority_factor).toBe(r.priority_weights.critical);
    expect(e.forgotten_factor).toBe(config.forgetting.forgotten_rank_factor);
    expect(hit!.score).toBeCloseTo(e.rrf * e.retention_factor * e.importance_factor * e.priority_factor * e.forgotten_factor, 12);
    expect(e.score).toBe(hit!.score);
  });

  it('boosts a memory whose tag the query names, as a whole word', () => {
    const hits = rankHybrid([cand('a', { bm25: 2 }), cand('b', { bm25: 1, tags: ['synapse'] })], 'status of Synapse?', config);
    expect(hits[0]).toMatchObject({ id: 'b', explain: { tag_boost: r.tag_boost } });
    expect(rankHybrid([cand('b', { bm25: 1, tags: ['syn'] })], 'synapse', config)[0]!.explain.tag_boost).toBe(1);
    // Whatever the accents, as full text reads them.
    expect(rankHybrid([cand('c', { bm25: 1, tags: ['Café'] })], 'the cafe', config)[0]!.explain.tag_boost).toBe(r.tag_boost);
    expect(rankHybrid([cand('d', { bm25: 1, tags: ['cafe'] })], 'le café', config)[0]!.explain.tag_boost).toBe(r.tag_boost);
  });

  it('does not boost a role tag: "the user" in a question is the person, not a topic', () => {
    const hits = rankHybrid([cand('fact', { bm25: 2 }), cand('episode', { bm25: 1, tags: ['user'] }), cand('reply', { bm25: 1.5, tags: ['Assistant'] })], 'where does the user work for the assistant', config);
    expect(hits.map((h) => [h.id, h.explain.tag_boost])).toEqual([
      ['fact', 1],
      ['reply', 1],
      ['episode', 1],
    ]);
  });

  it('lets a hit cue its neighbours in time, more the one after it', () => {
    const ctx = { temporal_context: 'session-1' };
    const hits = rankHybrid(
      [cand('hit', { ...ctx, temporal_position: 10, bm25: 4 }), cand('before', { ...ctx, temporal_position: 9 }), cand('after', { ...ctx, temporal_position: 11 }), cand('far', { ...ctx, temporal_position: 20 })],
      'q',
      config,
    );
    expect(hits.map((h) => h.id)).toEqual(['hit', 'after', 'before']);
    const after = hits.find((h) => h.id === 'after')!;
    // The memory after a hit takes forward × 2 × adjacent of its score.
    expect(after.explain.text.smoothed).toBeCloseTo(4 * 2 * r.neighbor_weights.forward * r.neighbor_weights.adjacent, 12);
  });

  it('scores a memory with no place in time as one whose whole neighbourhood is as relevant as itself', () => {
    const ctx = { temporal_context: 'chat' };
    const placed = [8, 9, 10, 11, 12].map((p) => cand(`p${p}`, { ...ctx, temporal_position: p, bm25: 2, distance: 0.5 }));
    const hits = rankHybrid([cand('fact', { bm25: 2, distance: 0.5 }), ...placed], 'q', config);
    const smoothed = (id: string) => hits.find((h) => h.id === id)!.explain;
    expect(placelessFactor(r.neighbor_weights)).toBeCloseTo(1 + 2 * r.neighbor_weights.adjacent + 2 * r.neighbor_weights.second, 12);
    // The middle of five equal lines takes its whole neighbourhood's weight: the placeless fact the same.
    expect(smoothed('fact').text.smoothed).toBeCloseTo(smoothed('p10').text.smoothed, 12);
    expect(smoothed('fact').vector.smoothed).toBeCloseTo(smoothed('p10').vector.smoothed, 12);
    // A line at the edge has fewer neighbours, and ranks below the fact.
    expect(smoothed('p8').text.smoothed).toBeLessThan(smoothed('fact').text.smoothed);
  });

  const arbCandidates = fc
    .uniqueArray(
      fc.record({
        id: fc.uuid(),
        bm25: fc.option(fc.double({ min: 0.01, max: 30, noNaN: true }), { nil: undefined }),
        distance: fc.option(fc.double({ min: 0, max: 1.5, noNaN: true }), { nil: undefined }),
        temporal_context: fc.constantFrom(null, 's1', 's2'),
        temporal_position: fc.option(fc.nat(20), { nil: null }),
        tags: fc.array(fc.constantFrom('alpha', 'beta', 'gamma'), { maxLength: 2 }),
        retention: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        importance: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        priority: fc.constantFrom(...MEMORY_PRIORITIES),
        forgotten: fc.boolean(),
      }),
      { selector: (c) => c.id, maxLength: 40 },
    )
    .map((cs) => cs as Candidate[]);

  it('returns at most `limit` positive hits, best first, each explained by its own score', () => {
    fc.assert(
      fc.property(arbCandidates, fc.constantFrom('alpha', 'beta gamma', 'nothing'), fc.integer({ min: 1, max: 50 }), (cs, q, limit) => {
        const hits = rankHybrid(cs, q, config, limit);
        expect(hits.length).toBeLessThanOrEqual(limit);
        for (let i = 0; i < hits.length; i++) {
          expect(hits[i]!.score).toBeGreaterThan(0);
          expect(hits[i]!.explain.score).toBe(hits[i]!.score);
          if (i > 0) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
        }
        // A memory neither branch matched, nor any neighbour of one, never comes back.
        const ids = new Set(hits.map((h) => h.id));
        for (const c of cs) if (c.bm25 === undefined && c.distance === undefined && (c.temporal_context === null || c.temporal_position === null)) expect(ids.has(c.id)).toBe(false);
      }),
    );
  });

  it('never ranks a memory lower for having more retention (all else equal)', () => {
    fc.assert(
      fc.property(arbCandidates, fc.double({ min: 0, max: 1, noNaN: true }), (cs, delta) => {
        if (cs.length === 0) return;
        const before = rankHybrid(cs, 'alpha', config);
        const target = before[0];
        if (!target) return;
        const lifted = cs.map((c) => (c.id === target.id ? { ...c, retention: Math.min(1, (c.retention ?? 1) + delta) } : c));
        const after = rankHybrid(lifted, 'alpha', config);
        expect(after.find((h) => h.id === target.id)!.score).toBeGreaterThanOrEqual(target.score);
      }),
    );
  });
});

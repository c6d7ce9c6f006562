import fc from 'fast-check';
import { clusterEpisodes, generaliseCluster, type Episode } from './generalise';
import { DEFAULT_LIFECYCLE } from './lifecycle-config';

const at = (day: number) => new Date(Date.UTC(2026, 0, day));
const ep = (id: string, content: string, day: number, tags: string[] = []): Episode => ({ id, content, occurred_at: at(day), importance_score: 0.5, tags });

describe('systems consolidation: clusters of episodes generalised into semantic memories', () => {
  const running = [
    ep('a', 'Melanie went running along the river this morning before work', 1, ['health', 'melanie']),
    ep('b', 'Melanie went running along the river again, before work, in the rain', 3, ['melanie']),
    ep('c', 'This morning Melanie was running along the river before work', 9, ['melanie', 'routine']),
  ];
  const other = [ep('x', 'Caroline adopted a cat from the shelter', 2), ep('y', 'The pottery class moved to Thursday', 5)];

  it('groups the related episodes and leaves unrelated ones alone', () => {
    const clusters = clusterEpisodes([...other, ...running], DEFAULT_LIFECYCLE);
    expect(clusters.map((c) => c.map((e) => e.id).sort())).toEqual([['a', 'b', 'c']]);
  });

  it('makes a deterministic, extractive semantic memory from a cluster', () => {
    const g = generaliseCluster(running, DEFAULT_LIFECYCLE);
    expect(g.key).toBe(generaliseCluster([...running].reverse(), DEFAULT_LIFECYCLE).key);
    expect(g.key).toMatch(/^generalised_[0-9a-f]{16}$/);
    expect(g.member_ids).toEqual(['a', 'b', 'c']);
    expect(g.shared_words).toEqual(expect.arrayContaining(['melanie', 'running', 'river', 'work']));
    expect(g.content).toContain('a pattern across 3 episodes, 2026-01-01 to 2026-01-09');
    expect(g.tags).toEqual(['melanie']);
    expect(g.from).toEqual(at(1));
    expect(g.to).toEqual(at(9));
    expect(g.abstraction_level).toBeCloseTo(1 + Math.log2(3), 3);
    expect(g.generalization).toBe(1);
  });

  it('puts every episode in at most one cluster, every cluster at least cluster_min_size large', () => {
    const words = ['river', 'run', 'cat', 'shelter', 'pottery', 'class', 'work', 'paint', 'lake'];
    const episode = fc.record({
      id: fc.uuid(),
      content: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' ')),
      day: fc.integer({ min: 1, max: 300 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(episode, { selector: (e) => e.id, maxLength: 40 }), (rows) => {
        const clusters = clusterEpisodes(rows.map((r) => ep(r.id, r.content, r.day)), DEFAULT_LIFECYCLE);
        const seen = clusters.flat().map((e) => e.id);
        expect(new Set(seen).size).toBe(seen.length);
        for (const c of clusters) expect(c.length).toBeGreaterThanOrEqual(DEFAULT_LIFECYCLE.systems.cluster_min_size);
      }),
    );
  });
});

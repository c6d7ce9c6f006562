import { createHash } from 'node:crypto';
import type { LifecycleConfig } from './lifecycle-config';
import { contentWords, wordSimilarity } from './similarity';
import { isSemantic } from './systems';
import { gistOf } from './tiers';

/** An episode as systems consolidation sees it. */
export interface Episode {
  id: string;
  content: string;
  occurred_at: Date;
  /** 0..1, or null when never scored. */
  importance_score: number | null;
  tags: string[];
}

/** What a cluster of episodes generalises into (seed 000 episodic → semantic). */
export interface Generalisation {
  /** Deterministic from the members' ids: the same cluster always makes the same key. */
  key: string;
  /** Extractive: the central episode's gist, the span and the words the episodes share. */
  content: string;
  member_ids: string[];
  /** Words in at least half the episodes, most frequent first (at most 8). */
  shared_words: string[];
  /** Tags every episode has. */
  tags: string[];
  /** The highest importance among the episodes (0..1). */
  importance: number;
  from: Date;
  to: Date;
  /** Seed 000 episodic_semantic_boundary measures, and whether they make it semantic. */
  abstraction_level: number;
  context_dependency: number;
  generalization: number;
  semantic: boolean;
}

/**
 * Clusters related episodes (seed 000 systems consolidation: "clusters of related episodes are
 * generalised"): leader clustering in time order, each unassigned episode gathering the
 * unassigned ones whose word similarity (Jaccard of content words) to it is at least
 * `systems.cluster_similarity`; groups smaller than `systems.cluster_min_size` are dropped.
 * Deterministic for a given input order; O(n²) word comparisons, so callers pass a bounded batch.
 */
export function clusterEpisodes(episodes: readonly Episode[], config: LifecycleConfig): Episode[][] {
  const { cluster_similarity: threshold, cluster_min_size: minSize } = config.systems;
  const sorted = [...episodes].sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime() || a.id.localeCompare(b.id));
  const words = new Map(sorted.map((e) => [e.id, contentWords(e.content)]));
  const taken = new Set<string>();
  const clusters: Episode[][] = [];
  for (const leader of sorted) {
    if (taken.has(leader.id)) continue;
    const lw = words.get(leader.id) as Set<string>;
    if (lw.size === 0) continue;
    const members = [leader, ...sorted.filter((e) => e !== leader && !taken.has(e.id) && wordSimilarity(lw, words.get(e.id) as Set<string>) >= threshold)];
    if (members.length < minSize) continue;
    for (const m of members) taken.add(m.id);
    clusters.push(members);
  }
  return clusters;
}

/**
 * The semantic memory a cluster generalises into, extractively (the default, when no LLM is
 * configured): content = the gist of the medoid (the episode most similar to the others), the
 * span, and the shared words. Seed 000's boundary measures: abstraction level 1 + log2(n)
 * (≤ 5), context dependency = the share of the medoid's words the others do not share,
 * generalization = the share of episodes holding at least half the shared words.
 */
export function generaliseCluster(members: readonly Episode[], config: LifecycleConfig): Generalisation {
  const words = members.map((m) => contentWords(m.content));
  let medoid = 0;
  let best = -1;
  for (let i = 0; i < members.length; i++) {
    let sum = 0;
    for (let j = 0; j < members.length; j++) if (i !== j) sum += wordSimilarity(words[i] as Set<string>, words[j] as Set<string>);
    if (sum > best) [best, medoid] = [sum, i];
  }
  const counts = new Map<string, number>();
  for (const ws of words) for (const w of ws) counts.set(w, (counts.get(w) ?? 0) + 1);
  const shared = [...counts.entries()]
    .filter(([, n]) => n * 2 >= members.length)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([w]) => w);
  const ids = members.map((m) => m.id).sort();
  const times = members.map((m) => m.occurred_at.getTime());
  const from = new Date(Math.min(...times));
  const to = new Date(Math.max(...times));
  const medoidWords = words[medoid] as Set<string>;
  const sharedSet = new Set(shared);
  const abstraction = Math.min(5, 1 + Math.log2(members.length));
  const contextDependency = medoidWords.size === 0 ? 1 : [...medoidWords].filter((w) => !sharedSet.has(w)).length / medoidWords.size;
  const generalization = words.filter((ws) => shared.filter((w) => ws.has(w)).length * 2 >= shared.length).length / members.length;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const top = shared.slice(0, 8);
  const content = `${gistOf((members[medoid] as Episode).content)} (a pattern across ${members.length} episodes, ${day(from)} to ${day(to)}; recurring: ${top.join(', ')})`;
  const tags = members.map((m) => m.tags).reduce((acc, t) => acc.filter((x) => t.includes(x)));
  const measures = { abstraction_level: +abstraction.toFixed(3), context_dependency: +contextDependency.toFixed(3), generalization: +generalization.toFixed(3) };
  return {
    key: `generalised_${createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 16)}`,
    content,
    member_ids: ids,
    shared_words: top,
    tags,
    importance: Math.max(0, ...members.map((m) => m.importance_score ?? 0)),
    from,
    to,
    ...measures,
    semantic: isSemantic(measures, config),
  };
}

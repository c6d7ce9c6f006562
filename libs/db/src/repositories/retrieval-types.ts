import type { AssociationRelation, MemoryPriority, TextStats } from '@engram/memory';

// The shapes of hybrid retrieval shared by its repository, its SQL and the association graph's search.

/**
 * How the query finds memories: full text with `any` word (ranked) or `all` in web-search syntax,
 * each fused with the nearest vectors; or `vector`: by meaning only (no full-text branch).
 */
export type MatchMode = 'any' | 'all' | 'vector';

/** Where a hit sits in time, so its neighbours can be fetched without reading it again. */
export interface Placed {
  id: string;
  temporal_context: string | null;
  temporal_position: number | null;
}

export interface TextHit extends Placed {
  bm25: number;
}

export interface VectorHit extends Placed {
  distance: number;
}

/** A link search followed from a hit (`source`) to a memory it brought (`target`): what the target is to the source. */
export interface FollowedLink {
  source: string;
  target: string;
  relation: AssociationRelation;
  weight: number;
}

/** What ranking needs of a candidate (the full row is read only for the hits returned). */
export interface CandidateRow {
  id: string;
  temporal_context: string | null;
  temporal_position: number | null;
  tags: string[];
  importance_score: number | null;
  priority: MemoryPriority;
  forgotten: boolean;
  /** Retention at the search's instant, 0..1; null when the memory has no lifecycle fields. */
  retention: number | null;
}

/** How vectors are searched: exactly (small minds), or through HNSW with this `hnsw.ef_search`. */
export type VectorScan = { exact: true } | { exact: false; efSearch: number };

/** A search as the repository runs it: the query's text, how it matches, and its vector if any. */
export interface RetrievalQuery {
  q: string;
  mode: MatchMode;
  vector: readonly number[] | null;
  /** The query's stemmed lexemes and the mind's statistics for them (`any` and `all`). */
  lexemes: readonly string[];
  stats: TextStats;
  /** How many memories `any` mode may match (libs/memory matchBudget); MATCH_BUDGET when not given. */
  budget?: number;
}

/**
 * ivfflat sizing (pgvector README, "IVFFlat: lists"): `rows / 1000` lists up to a million rows,
 * `sqrt(rows)` beyond; at least one. The two rules meet at a million rows (1000 lists).
 *
 * @param rows vectors in the index (≥ 0)
 */
export function ivfflatLists(rows: number): number {
  const n = Math.max(0, Math.floor(rows));
  return Math.max(1, Math.round(n <= 1_000_000 ? n / 1000 : Math.sqrt(n)));
}

/** What the vector index was built for, and what the table holds now. */
export interface IvfflatState {
  /** Rows now (an estimate is enough: pg_class.reltuples). */
  rows: number;
  /** The index's current `lists`. */
  lists: number;
  /** Rows when it was built; null when unknown (then the rows its lists suit, lists × 1000). */
  builtForRows: number | null;
}

/**
 * True when the index should be rebuilt: its `lists` is not the one {@link ivfflatLists} gives
 * for today's rows, and the table has grown to `growth` times (or shrunk to 1/`growth` of) the
 * rows it was built for. ivfflat's centroids are fixed at build time, so a table that has grown
 * well past them searches fewer of its rows per probe (pgvector README: "create the index after
 * the table has some data"; rebuilding is the remedy).
 *
 * @param growth factor > 1 (default 2)
 */
export function ivfflatRebuildDue(state: IvfflatState, growth = 2): boolean {
  if (ivfflatLists(state.rows) === state.lists) return false;
  const builtFor = state.builtForRows ?? state.lists * 1000;
  if (builtFor <= 0) return state.rows > 0;
  return state.rows >= builtFor * growth || state.rows <= builtFor / growth;
}

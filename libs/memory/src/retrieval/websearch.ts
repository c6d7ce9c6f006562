/**
 * A run of exclusions: a `-` that starts a word (nothing alphanumeric before it) and more `-`
 * after it with only separators between (spaces, brackets, `!`: websearch_to_tsquery skips them).
 */
const EXCLUSION_RUN = /(?<![\p{L}\p{N}-])-(?:[^\p{L}\p{N}"-]*-)+/gu;

/**
 * The text `all` mode gives PostgreSQL's `websearch_to_tsquery`, with each run of exclusions
 * reduced to its parity: `--cat` is `!!'cat'`, which is `'cat'`, so an even run goes and an odd
 * one becomes a single `-`. The meaning is unchanged; the reason is that the parser stacks one
 * operator per `-` and fails past 32 in a row ("tsquery stack too small", PostgreSQL's
 * tsquery.c STACKDEPTH), which a query of 33 dashes turned into a 500 (a newcomer's report).
 *
 * @param q the query as the caller sent it
 * @returns the same query for websearch_to_tsquery, with no two exclusions in a row
 */
export function websearchText(q: string): string {
  return q.replace(EXCLUSION_RUN, (run) => ((run.match(/-/g) ?? []).length % 2 === 1 ? '-' : ' '));
}

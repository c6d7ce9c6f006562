import { CJK_RUN } from '../cjk';

/**
 * A run of exclusions: a `-` that starts a word (nothing alphanumeric before it) and more `-`
 * after it with only separators between (spaces, brackets, `!`: websearch_to_tsquery skips them).
 */
const EXCLUSION_RUN = /(?<![\p{L}\p{N}-])-(?:[^\p{L}\p{N}"-]*-)+/gu;

/**
 * The text `all` mode gives PostgreSQL's `websearch_to_tsquery`, with each run of exclusions
 * reduced to its parity: `---cat` is `!!!'cat'`, which is `!'cat'`, so an odd run becomes a single
 * `-` and an even one its last two. The meaning is unchanged; the reason is that the parser stacks
 * one operator per `-` and fails past 32 in a row ("tsquery stack too small", PostgreSQL's
 * tsquery.c STACKDEPTH), which a query of 33 dashes turned into a 500 (a newcomer's report).
 * An even run keeps two dashes rather than none because a word after a dash is a word: `--or`
 * excludes the stop word "or" twice (nothing), while a bare `or` would be the OR operator
 * (CI's property test found `-고양이!--or"고양이`, which matched nothing, matching everything).
 *
 * @param q the query as the caller sent it
 * @returns the same query for websearch_to_tsquery, with at most two exclusions in a row
 */
export function websearchText(q: string): string {
  return quoteWordParts(quoteCjkRuns(typedAsAscii(q).replace(EXCLUSION_RUN, (run) => ((run.match(/-/g) ?? []).length % 2 === 1 ? '-' : run.slice(run.lastIndexOf('-', run.length - 2))))));
}

/**
 * A word of the query as web-search syntax reads it: after a space, a bracket, `!` or the start,
 * its exclusion dashes, then the word up to the next space, quote, bracket or `!`.
 */
const WORD = /(^|[\s(!])(-*)([^\s"()!-][^\s"()!]*)/g;
/**
 * Where the database parts a word (engram_search_text, migration 20261219000000): where a letter
 * meets `@ . / _ :` (not between two single letters: "U.S.", "e.g."), or a digit one before a
 * letter, or at a hyphen between a letter and a digit. Never between two digits, nor at a hyphen
 * between letters.
 */
const PARTED = /[A-Za-z]{2}[@./_:]+[A-Za-z0-9]|(?<![A-Za-z])[A-Za-z][@./_:]+(?:[A-Za-z0-9]{2}|[0-9])|[0-9][@./_:]+[A-Za-z]|[A-Za-z]-+[0-9]|[0-9]-+[A-Za-z]/;

/**
 * Each word outside quotes that the database parts (an e-mail address, a web or file path, a
 * snake_case name, an id: `priya.sharma@globex.io`, `JIRA-4821`) quoted whole, its exclusion
 * dashes left before it: quoted, its parts are one phrase, so that `-bob@example.com` excludes
 * the address (unquoted, `-` took only its first part and required the others: "email
 * -bob@example.com" lost every other e-mail) and `all` mode finds `example.com` only where the two
 * words stand together (helper 42). The whole word, not its ASCII run: `-고양이x-2026` stays one
 * exclusion.
 */
export function quoteWordParts(q: string): string {
  return q
    .split('"')
    .map((part, i) => (i % 2 === 0 ? part.replace(WORD, (all, before: string, dashes: string, word: string) => (PARTED.test(word) ? `${before}${dashes}"${word}"` : all)) : part))
    .join('"');
}

/** Dashes an input method or a word processor types for `-` (full-width, minus sign, hyphens, en and em dashes). */
const DASHES = /[\uff0d\u2212\u2010\u2011\u2013\u2014]/g;
/** Quotation marks typed for `"` (curly, CJK corner brackets, full-width, guillemets). */
const QUOTES = /[\u201c\u201d\u201e\u300c\u300d\u300e\u300f\uff02\u00ab\u00bb]/g;

/**
 * The operators of web-search syntax as typed on any keyboard: spaces of every kind as a space,
 * dashes as `-`, quotation marks as `"`, and a comma or an ideographic comma just before an
 * exclusion spaced from it (websearch_to_tsquery reads `a,-b` as the hyphenated `a-b`). An
 * input method's `住在　-北京`, `住在、－北京` or `-「北京」` excluded nothing (a newcomer's).
 */
export function typedAsAscii(q: string): string {
  return q
    .replace(/\p{Zs}/gu, ' ')
    .replace(DASHES, '-')
    .replace(QUOTES, '"')
    .replace(/[,、，](?=-)/g, (c) => `${c} `);
}

/**
 * Each run of Han or kana characters outside quotes quoted: the database reads the run as its
 * bigrams, and quoted they are one phrase, so that `北京谷歌` must hold the run itself and `-北京谷歌`
 * excludes it (unquoted, the bigrams would be separate words, and `-` would take only the first).
 * Inside quotes a run is already part of a phrase. An unclosed quote runs to the end, as
 * websearch_to_tsquery reads it.
 */
export function quoteCjkRuns(q: string): string {
  return q
    .split('"')
    .map((part, i) => (i % 2 === 0 ? part.replace(CJK_RUN, (run) => `"${run}"`) : part))
    .join('"');
}

/**
 * The words a web-search query looks for: `q` without its exclusions (`-word`, `-"a phrase"`,
 * outside quotes), for what ranks the results (BM25's words, the query's embedding, a named
 * tag). The exclusions still exclude (the match is the whole query); they do not count for a
 * memory: `invoices -bob` ranked Bob's invoice memory first on the word "bob", and
 * `-bob@example.com` alone answered Alice's address, which shares "example" and "com" with it (a
 * newcomer's find). A query of exclusions only looks for nothing: an empty string.
 */
export function withoutExclusions(q: string): string {
  // A run of dashes counts by its parity, as websearchText reads it: `--cat` looks for "cat".
  const excludes = (dashes: string) => dashes.length % 2 === 1;
  const parts = typedAsAscii(q).split('"');
  let dropPhrase = false;
  return parts
    .map((part, i) => {
      if (i % 2 === 1) {
        const kept = dropPhrase ? '' : `"${part}"`;
        dropPhrase = false;
        return kept;
      }
      const beforeQuote = /(^|[\s(!])(-+)$/.exec(part);
      dropPhrase = i + 1 < parts.length && beforeQuote !== null && excludes(beforeQuote[2] as string);
      const own = dropPhrase ? part.slice(0, part.length - (beforeQuote?.[2] as string).length) : part;
      return own.replace(WORD, (all, before: string, dashes: string) => (excludes(dashes) ? before : all));
    })
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

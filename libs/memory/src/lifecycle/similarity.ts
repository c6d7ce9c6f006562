import { cjkBigrams } from '../cjk';

const STOP_WORDS = new Set(
  ('a an the and or but if then so to of in on at by for with from as is are was were be been being am i you he she it we they me him her us them ' +
    'my your his its our their this that these those do does did have has had not no yes just very really too also can could will would shall should ' +
    'what which who whom when where why how all any some there here about into over out up down off than oh ok okay yeah hey hi ' +
    // Fillers that reword a statement without changing it ("Noted: the DGIA approved the budget").
    'noted fyi btw anyway um uh hmm well basically guess update reminder 참고로').split(' '),
);

/**
 * Content words of a text: lower-cased letters and digits, stop words dropped; Chinese and
 * Japanese, written without spaces, as the pairs of characters of each run ({@link cjkBigrams},
 * as search reads them): a whole sentence was one word, so "我住在北京" had too few words for
 * attention and a reworded one shared nothing with it.
 */
export function contentWords(text: string): Set<string> {
  const words = cjkBigrams(text.toLowerCase()).match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /[\p{N}\p{Script=Han}]/u.test(w))));
}

/** Jaccard similarity of two texts' content words, 0..1 (1 = same words). */
export function wordSimilarity(a: string | Set<string>, b: string | Set<string>): number {
  const x = typeof a === 'string' ? contentWords(a) : a;
  const y = typeof b === 'string' ? contentWords(b) : b;
  if (x.size === 0 && y.size === 0) return 1;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared += 1;
  return shared / (x.size + y.size - shared);
}

/** The words of a text that carry a value: written with a capital or made of digits (names, places, numbers, dates), stop words left out. */
export function valueWords(text: string): Set<string> {
  const found = text.match(/[\p{Lu}\p{N}][\p{L}\p{N}]*/gu) ?? [];
  return new Set(found.map((w) => w.toLowerCase()).filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\p{N}/u.test(w))));
}

/**
 * True when two texts state the same thing (near-duplicate integration and rehearsal;
 * docs/design.md §4.3): their content words are at least `threshold` similar, and no value of
 * one (a name, a number: {@link valueWords}) is missing from the other's words. "I moved to
 * Boston" and "I moved to Denver" are two facts however long the sentence around them: merging
 * them would lose the new value (ours; measured by bench/near-duplicates.ts).
 */
export function sameStatement(a: string, b: string, threshold: number): boolean {
  const x = contentWords(a);
  const y = contentWords(b);
  if (wordSimilarity(x, y) < threshold) return false;
  for (const w of valueWords(a)) if (!y.has(w)) return false;
  for (const w of valueWords(b)) if (!x.has(w)) return false;
  return true;
}

import porterStemmer from '@stdlib/nlp-porter-stemmer';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder';

const STOP_WORDS = new Set(
  ('a an the and or but if then so to of in on at by for with from as is are was were be been being am i you he she it we they me him her us them ' +
    'my your his its our their this that these those do does did have has had not no yes just very really too also can could will would shall should ' +
    'what which who whom when where why how all any some there here about into over out up down off than oh ok okay yeah hey hi s t d ll m re ve').split(' '),
);

/** Feature weights: whole stemmed words carry most, word pairs some, character n-grams a little. */
export interface HashingWeights {
  word: number;
  bigram: number;
  charGram: number;
  /** Adjacent-character pairs inside words of non-Latin scripts (Korean, CJK, Cyrillic, ...). */
  syllablePair: number;
}

// Tuned on LoCoMo's development conversations (bench/RESULTS.md): heavier character n-grams blur
// whole-word matches more than they help.
export const DEFAULT_HASHING_WEIGHTS: HashingWeights = { word: 1, bigram: 0.3, charGram: 0.1, syllablePair: 0.5 };

const LATIN = /^[a-z]+$/;
/** Words with letters beyond ASCII (Korean, CJK, accented Latin...): numbers and English words are left out. */
const NON_ASCII = /[^\x00-\x7f]/;

/** Lower-cased, NFKC-normalised words of a text; English words Porter-stemmed, stop words dropped. */
export function hashingTokens(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    if (STOP_WORDS.has(w)) continue;
    out.push(LATIN.test(w) ? porterStemmer(w) : w);
  }
  return out;
}

/** FNV-1a, 32 bits: fast, deterministic, spreads short strings well. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(vector: Float64Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  // The low bits choose the dimension, the top bit the sign: collisions cancel on average.
  const i = h % vector.length;
  vector[i] = (vector[i] ?? 0) + (h & 0x80000000 ? -weight : weight);
}

/**
 * The default embedder: signed feature hashing of stemmed words, word bigrams, character
 * 3-5-grams and, in non-Latin scripts, adjacent-character pairs, into 768 dimensions, sublinear
 * term frequency, L2-normalised. Deterministic, local, no model download. Lexical: it matches
 * wording, not meaning; it backs up full text where Postgres stemming stops (Korean particles
 * and endings, word order), while English misspellings and word pieces stay below the search's
 * similarity floor (the character n-grams weigh little: LoCoMo tuning, bench/RESULTS.md).
 * v2: adds the character pairs (v1 memories are re-embedded in the background).
 */
export class HashingEmbedder implements Embedder {
  readonly model = 'engram-hashing-768-v2';
  readonly dimensions = EMBEDDING_DIMENSIONS;

  constructor(private readonly weights: HashingWeights = DEFAULT_HASHING_WEIGHTS) {}

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => this.embedOne(t));
  }

  /**
   * @param tokenWeight multiplies each word's features (a query may weight its words by their
   *   rarity in the mind searched; stored memories use 1)
   */
  embedOne(text: string, tokenWeight?: (token: string) => number): number[] {
    const tokens = hashingTokens(text);
    const counts = new Map<string, number>();
    const bump = (f: string, w: number) => counts.set(f, (counts.get(f) ?? 0) + w);
    tokens.forEach((t, i) => {
      const tw = tokenWeight ? tokenWeight(t) : 1;
      bump(`w:${t}`, tw);
      if (i > 0) bump(`b:${tokens[i - 1]}_${t}`, tokenWeight ? Math.min(tw, tokenWeight(tokens[i - 1] as string)) : 1);
      if (NON_ASCII.test(t)) {
        // Unspaced scripts glue particles and endings to words (Korean 데이터베이스를 = 데이터베이스 + 를):
        // syllable pairs let such forms meet, as CJK full-text engines index bigrams. They meet
        // weakly in a long memory: "서울" against "2023년부터 서울에 살고 있어요" is 0.085, under
        // the 0.1 floor, while hash collisions put unrelated text above it; full text (the
        // Hangul prefix match) is what finds such a word (a newcomer's measurement).
        const syllables = [...t];
        for (let s = 0; s + 2 <= syllables.length; s++) bump(`k:${syllables[s]}${syllables[s + 1]}`, tw);
      }
      const padded = `#${t}#`;
      const chars = [...padded];
      for (let n = 3; n <= 5; n++) {
        for (let s = 0; s + n <= chars.length; s++) bump(`c:${chars.slice(s, s + n).join('')}`, tw / Math.max(1, chars.length - 2));
      }
    });
    const v = new Float64Array(this.dimensions);
    for (const [feature, tf] of counts) {
      const kind = feature[0];
      const w = kind === 'w' ? this.weights.word : kind === 'b' ? this.weights.bigram : kind === 'k' ? this.weights.syllablePair : this.weights.charGram;
      add(v, feature, w * (1 + Math.log(tf > 1 ? tf : 1)) * (kind === 'c' ? tf : 1));
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    return Array.from(v, (x) => (norm > 0 ? x / norm : 0));
  }
}

/**
 * Benchmark corpora built from LoCoMo (issue 16, item 1).
 *
 * `distinct` (the default of bench:scale and bench:ann): memories no two of which say the same
 * thing. Each is one to three sentences of different turns (mostly turns near each other in one
 * conversation, as a memory sums up a stretch of talk; sometimes of anywhere), then varied:
 * person names swapped among the file's speakers, other proper nouns (places, titles, brands)
 * among the file's proper nouns, weekdays and months among those the file names, numbers among
 * the file's numbers, years around the file's years, common words for a synonym (a small
 * paraphrase table), and some memories dated with a session date of the file. Every text is
 * checked against all earlier ones on the default embedder's tokens (lower-cased stemmed words
 * without stop words), and a repeat is drawn again, so no text recurs, even up to case,
 * punctuation, stop words and word endings, and no two memories get the same local vector. The same source and seed give the same texts in the same order.
 *
 * A share of the turns (1 in 20) is held out of the memories: `queries` draws from them, as
 * memory-like questions whose nearest neighbours are not themselves, and from the QA questions.
 *
 * `repeated` (the corpus of issue 7's figures): one or two consecutive turns, drawn at random,
 * so each turn recurs ~180 times in a million, and exact duplicates form clusters of identical
 * vectors (HNSW's recall fell to 0.33 on them).
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hashingTokens } from '@engram/embeddings';
import { parseConversation, type LocomoConversation } from '../scripts/locomo';
import { prng } from './support';

export const CORPORA = ['distinct', 'repeated'] as const;
export type CorpusKind = (typeof CORPORA)[number];

export interface SourceTurn {
  conversation: number;
  speaker: string;
  /** What was said (and the image caption). */
  text: string;
}

/** What the corpora are made from: the turns in order, the QA questions and the session dates (`8 May, 2023`). */
export interface CorpusSource {
  turns: SourceTurn[];
  questions: string[];
  dates: string[];
}

export function corpusSource(conversations: readonly LocomoConversation[]): CorpusSource {
  const turns = conversations.flatMap((c, conversation) => c.turns.map((t) => ({ conversation, speaker: t.speaker, text: t.utterance })));
  const questions = conversations.flatMap((c) => c.qa.map((q) => q.question)).filter((q) => q.trim().length > 0);
  const dates = [...new Set(conversations.flatMap((c) => c.turns.map((t) => /on\s+(.+)$/.exec(t.sessionDateText ?? '')?.[1]?.trim() ?? '')).filter(Boolean))];
  return { turns, questions, dates };
}

/** The LoCoMo file's corpus source, read where it lies. */
export async function readCorpusSource(file: string): Promise<CorpusSource> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as unknown[];
  return corpusSource((Array.isArray(raw) ? raw : [raw]).map(parseConversation));
}

/** A text's words as the embedder and the full-text index see them: lower case, letters and digits. */
export function normalized(text: string): string {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/** Held-out queries made (and reserved) up front. */
const HELD_OUT_QUERIES = 1000;

/**
 * The key texts are told apart by: a hash of the default embedder's tokens (stemmed words, stop
 * words dropped), so that no two memories have the same vector, nor the same words.
 */
function textKey(text: string): string {
  return createHash('sha1').update(hashingTokens(text).join(' ')).digest('base64').slice(0, 16);
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** Paraphrase-like swaps: each word of a group may stand for another of it. */
const SYNONYMS = [
  'great awesome amazing wonderful fantastic',
  'happy glad pleased',
  'really truly',
  'kids children little ones',
  'love adore',
  'started began',
  'hard tough difficult',
  'beautiful lovely gorgeous',
  'trip journey',
  'friends pals buddies',
  'big large huge',
  'small little tiny',
  'went headed',
  'excited thrilled',
  'cool neat',
  'awesome incredible',
  'picture photo pic',
  'recently lately',
  'proud pleased',
  'tough rough',
  'scared afraid',
  'wanted hoped',
  'idea plan',
].map((g) => g.split(' '));

interface Unit {
  turn: number;
  text: string;
}

export interface CorpusStats {
  /** Texts made so far, each distinct (asserted). */
  texts: number;
  /** Draws thrown away because their words repeated an earlier text's. */
  redraws: number;
}

export interface CorpusQuery {
  text: string;
  kind: 'question' | 'held-out';
}

/**
 * The distinct corpus: `next()` makes the next memory, never one whose words an earlier one had.
 * Queries come from their own stream: asking for them does not change the memories.
 */
export class DistinctCorpus {
  private readonly random: () => number;
  private readonly seen = new Set<string>();
  private readonly units: Unit[] = [];
  private readonly heldOut: Unit[] = [];
  /** Sentence units of each turn, by turn index. */
  private readonly byTurn: Unit[][] = [];
  private readonly people: string[];
  private readonly properNouns: string[];
  private readonly weekdays: string[];
  private readonly months: string[];
  private readonly numbers: string[];
  private readonly years: number[];
  private readonly synonyms = new Map<string, string[]>();
  private redraws = 0;
  private readonly heldOutQueries: string[] = [];
  /** Keys in `seen` that are the held-out queries', not memories. */
  private readonly reserved: number;

  constructor(
    private readonly source: CorpusSource,
    private readonly o: { seed: number; speakers: boolean },
  ) {
    this.random = prng(o.seed);
    source.turns.forEach((t, turn) => {
      const sentences = t.text.match(/[^.!?]+(?:[.!?]+|$)/g)?.map((s) => s.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s)) ?? [];
      const units = sentences.map((text) => ({ turn, text }));
      this.byTurn[turn] = units;
      (turn % 20 === 19 ? this.heldOut : this.units).push(...units);
    });
    if (this.units.length < 2 || this.heldOut.length < 1) throw new Error('corpus: the source has too few turns (at least 20 with sentences)');
    // Pools, all from the file: speakers; words capitalised inside a sentence and never written in lower case.
    this.people = [...new Set(source.turns.map((t) => t.speaker))];
    const lower = new Set<string>();
    const capital = new Set<string>();
    for (const t of source.turns) {
      for (const m of t.text.matchAll(/(^|[^.!?]\s)?([A-Za-z][a-z]+)/g)) {
        const word = m[2] as string;
        if (/^[a-z]/.test(word)) lower.add(word);
        else if (m[1] !== undefined) capital.add(word);
      }
    }
    const proper = [...capital].filter((w) => !lower.has(w.toLowerCase()) && w.length >= 3).sort();
    this.weekdays = WEEKDAYS.filter((d) => proper.includes(d) || source.dates.some((x) => x.includes(d)));
    this.months = MONTHS.filter((m) => proper.includes(m) || source.dates.some((x) => x.includes(m)));
    if (this.weekdays.length < 2) this.weekdays = WEEKDAYS;
    if (this.months.length < 2) this.months = MONTHS;
    this.properNouns = proper.filter((w) => !this.people.includes(w) && !WEEKDAYS.includes(w) && !MONTHS.includes(w));
    const numerals = source.turns.flatMap((t) => t.text.match(/\b\d+\b/g) ?? []);
    this.numbers = [...new Set(numerals.filter((n) => n.length < 4))].sort();
    if (this.numbers.length < 2) this.numbers = ['2', '3', '5', '10'];
    this.years = [...new Set([...source.dates, ...numerals].flatMap((x) => x.match(/\b(19|20)\d\d\b/g) ?? []).map(Number))].sort();
    if (this.years.length === 0) this.years = [2023];
    for (const group of SYNONYMS) for (const w of group) this.synonyms.set(w, [...(this.synonyms.get(w) ?? []), ...group.filter((x) => x !== w)]);
    // The held-out queries are made first, from a stream of their own, and reserved: no memory says what one of them says.
    const random = prng(o.seed ^ 0x5eed);
    for (let i = 0; this.heldOutQueries.length < HELD_OUT_QUERIES && i < HELD_OUT_QUERIES * 3; i++) {
      const text = this.draw(this.heldOut, random);
      const key = textKey(text);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.heldOutQueries.push(text);
    }
    this.reserved = this.seen.size;
  }

  /** The next memory: distinct in its words from every text made before. */
  next(): string {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const text = this.draw(this.units, this.random);
      const key = textKey(text);
      if (!this.seen.has(key)) {
        this.seen.add(key);
        return text;
      }
      this.redraws += 1;
    }
    throw new Error(`corpus: no new distinct memory after 1000 draws (${this.seen.size - this.reserved} made): the source is too small for this many`);
  }

  stats(): CorpusStats {
    return { texts: this.seen.size - this.reserved, redraws: this.redraws };
  }

  /**
   * `count` queries, the same whatever was made before: half QA questions (without repeats),
   * half memory-like texts of the held-out turns (never a memory of the corpus), alternating.
   */
  queries(count: number): CorpusQuery[] {
    const random = prng(this.o.seed ^ 0x9e37);
    const questions = [...this.source.questions];
    for (let i = questions.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [questions[i], questions[j]] = [questions[j] as string, questions[i] as string];
    }
    const out: CorpusQuery[] = [];
    for (let q = 0, h = 0; out.length < count && (q < questions.length || h < this.heldOutQueries.length); ) {
      if ((out.length % 2 === 0 || h >= this.heldOutQueries.length) && q < questions.length) out.push({ text: questions[q++] as string, kind: 'question' });
      else out.push({ text: this.heldOutQueries[h++] as string, kind: 'held-out' });
    }
    return out;
  }

  private pick<T>(xs: readonly T[], random: () => number): T {
    return xs[Math.floor(random() * xs.length)] as T;
  }

  /** One memory from `pool`: sentences of 1-3 different turns, then names, numbers, dates and words varied. */
  private draw(pool: Unit[], random: () => number): string {
    const u = random();
    const k = u < 0.2 ? 1 : u < 0.7 ? 2 : 3;
    const first = this.pick(pool, random);
    const chosen = [first];
    for (let tries = 0; chosen.length < k && tries < 10; tries++) {
      const prev = chosen[chosen.length - 1] as Unit;
      let next: Unit | undefined;
      if (random() < 0.75) {
        // A turn near the last one in the same conversation (and the same pool).
        const turn = prev.turn + Math.round((random() * 2 - 1) * 6);
        const t = this.source.turns[turn];
        const units = this.byTurn[turn];
        if (t && units && units.length > 0 && t.conversation === this.source.turns[prev.turn]?.conversation && (pool === this.heldOut) === (turn % 20 === 19)) next = this.pick(units, random);
      } else {
        next = this.pick(pool, random);
      }
      if (next && chosen.every((c) => c.turn !== next.turn)) chosen.push(next);
    }
    // One substitution map per memory, so a name swapped once is swapped everywhere in it.
    const map = new Map<string, string>();
    const swap = (word: string, pool: readonly string[]): string => {
      if (!map.has(word)) map.set(word, random() < 0.5 && pool.length > 1 ? this.pick(pool, random) : word);
      return map.get(word) as string;
    };
    const vary = (text: string): string =>
      text.replace(/[A-Za-z]+|\d+/g, (w) => {
        if (/^\d+$/.test(w)) {
          if (/^(19|20)\d\d$/.test(w)) return swap(w, this.years.flatMap((y) => [String(y - 1), String(y), String(y + 1)]));
          return swap(w, this.numbers);
        }
        if (this.people.includes(w)) return swap(w, this.people);
        if (WEEKDAYS.includes(w)) return swap(w, this.weekdays);
        if (MONTHS.includes(w)) return swap(w, this.months);
        if (/^[A-Z]/.test(w) && this.properNouns.includes(w)) return swap(w, this.properNouns);
        const alternatives = this.synonyms.get(w.toLowerCase());
        if (alternatives && random() < 0.3) {
          const s = this.pick(alternatives, random);
          return /^[A-Z]/.test(w) ? s[0]!.toUpperCase() + s.slice(1) : s;
        }
        return w;
      });
    let text = chosen.map((c) => vary(c.text)).join(' ');
    if (this.source.dates.length > 0 && random() < 0.25) {
      // A session date's month and year (varied), on another day.
      const date = this.pick(this.source.dates, random).replace(/^\d{1,2}\s*/, '');
      text = `${text} (${1 + Math.floor(random() * 28)} ${vary(date)})`;
    }
    if (this.o.speakers) text = `${vary(this.source.turns[first.turn]?.speaker ?? '')}: ${text}`;
    return text;
  }
}

/**
 * The repeated corpus, as issue 7 measured it: one or two consecutive `turns` from a random
 * start, drawn with `random` (shared with the seeding, so the old runs are made again exactly).
 */
export function repeatedTexts(turns: readonly string[], random: () => number): () => string {
  return () => {
    const start = Math.floor(random() * turns.length);
    return turns.slice(start, start + 1 + Math.floor(random() * 2)).join('\n');
  };
}

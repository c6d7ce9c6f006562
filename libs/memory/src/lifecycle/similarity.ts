import { straightApostrophes } from '../apostrophes';
import { cjkBigrams } from '../cjk';

const STOP_WORDS = new Set(
  ('a an the and or but if then so to of in on at by for with from as is are was were be been being am i you he she it we they me him her us them ' +
    'my your his its our their this that these those do does did have has had not no yes just very really too also can could will would shall should ' +
    'what which who whom when where why how all any some there here about into over out up down off than oh ok okay yeah hey hi ' +
    // Fillers that reword a statement without changing it ("Noted: the DGIA approved the budget").
    'noted fyi btw anyway um uh hmm well basically guess update reminder 참고로').split(' '),
);

/**
 * English contractions as their words: "don't" as "do not" (else "don" was a content word, and "I
 * don't have a car" was another statement than "I do not have a car"); "'m", "'re", "'ve", "'ll",
 * "'d", "'s" left out (their words are stop words).
 */
function expandContractions(lower: string): string {
  return straightApostrophes(lower)
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/n't\b/g, ' not')
    .replace(/'(?:m|re|ve|ll|d|s)\b/g, '');
}

/**
 * Content words of a text: lower-cased letters and digits, stop words dropped; Chinese and
 * Japanese, written without spaces, as the pairs of characters of each run ({@link cjkBigrams},
 * as search reads them): a whole sentence was one word, so "我住在北京" had too few words for
 * attention and a reworded one shared nothing with it.
 */
export function contentWords(text: string): Set<string> {
  return new Set(contentWordOrder(text));
}

/** A text's content words in the order they come, each once ({@link contentWords}). */
function contentWordOrder(text: string): string[] {
  const words = cjkBigrams(expandContractions(text.toLowerCase())).match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /[\p{N}\p{Script=Han}]/u.test(w))))];
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

/**
 * Numbers written as words (English, German, French, Spanish): "five years" and "eight years" are
 * different values. Left out: those spelt like a common English word (once, cent, elf).
 */
const NUMBER_WORDS = new Set(
  ('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million ' +
    'eins zwei drei vier fünf sechs sieben acht neun zehn zwölf zwanzig dreißig hundert tausend ' +
    'deux trois quatre cinq sept huit neuf dix onze douze vingt trente mille ' +
    'dos tres cuatro cinco seis siete ocho nueve diez doce veinte treinta cien mil').split(' '),
);

/**
 * The words of a text that carry a value: written with a capital or made of digits (names,
 * places, numbers, dates), a capital letter alone ("blood type B", "plan B"; not the article
 * or the pronoun), numbers written as words; stop words left out.
 */
export function valueWords(text: string): Set<string> {
  // Not the word of a contraction in capitals: "I DON'T" says "do not", no name "DON" nor letter "T".
  const capitalised = (text.match(/[\p{Lu}\p{N}][\p{L}\p{N}]*(?![\p{L}\p{N}]|['’][Tt](?![\p{L}]))/gu) ?? []).map((w) => w.toLowerCase()).filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\p{N}/u.test(w)));
  const letters = (text.match(/(?<![\p{L}\p{N}]['’]?)\p{Lu}(?![\p{L}\p{N}'’])/gu) ?? []).filter((l) => l !== 'A' && l !== 'I').map((l) => l.toLowerCase());
  const numbers = (text.toLowerCase().match(/[\p{L}]+/gu) ?? []).filter((w) => NUMBER_WORDS.has(w));
  return new Set([...capitalised, ...letters, ...numbers]);
}

/**
 * A negation, in any of the languages the rule path reads (English, German, French, Spanish as
 * words; Chinese, Japanese and Korean as the particles and endings that negate).
 */
const NEGATION =
  /(?<![\p{L}])(?:not|no|never|nothing|none|nobody|neither|nor|without|nicht|kein|keine|keinen|keinem|keiner|nie|niemals|ne|pas|jamais|aucun|aucune|nunca|ningún|ninguna|sin)(?![\p{L}])|n't(?![\p{L}])|(?<![\p{L}])(?:dont|doesnt|didnt|cant|wont|isnt|arent|wasnt|werent|havent|hasnt|hadnt|couldnt|shouldnt|wouldnt)(?![\p{L}])|(?<![\p{L}])n'|不|没|沒|無|无|ない|ません|なかった|않|안 |못|없/iu;
/** The tense a statement is in, as far as its auxiliaries tell (is/was/will): "My wife is pregnant" and "... was pregnant" are two facts. */
function tenseOf(text: string): 'past' | 'future' | 'present' {
  const lower = expandContractions(text.toLowerCase());
  if (/(?<![\p{L}])(?:will|shall|going to|gonna)(?![\p{L}])|'ll(?![\p{L}])/u.test(lower)) return 'future';
  if (/(?<![\p{L}])(?:was|were|had|did|used to)(?![\p{L}])/u.test(lower)) return 'past';
  return 'present';
}

/**
 * The small words that turn a statement around, which similarity leaves out as stop words: who
 * (I, my, your, he ...; not "you", which fillers say: "just so you know"), which way (up, down, on,
 * off, in, out, over, under, before, after, more, less, with, without), how sure (can, could, may,
 * might, must, should, would). "My job" and "your job", "lights on" and "lights off", "I live in
 * Lisbon" and "I could live in Lisbon" are two facts.
 */
const TURNING_WORDS = new Set('i me my we us our your he him his she her they them their up down on off in out over under before after more less with without can could may might must should would'.split(' '));
function turningWords(text: string): string {
  return [...new Set((expandContractions(text.toLowerCase()).match(/[\p{L}]+/gu) ?? []).filter((w) => TURNING_WORDS.has(w)))].sort().join(' ');
}

/**
 * Whether two texts hold the same content words with two of them swapped and the rest in place:
 * "tea over coffee" / "coffee over tea", "from Lisbon to Porto" / "from Porto to Lisbon". A
 * rewording moves a phrase (every position changes), not two words.
 */
function swapped(x: readonly string[], y: readonly string[]): boolean {
  if (x.length !== y.length) return false;
  const differ = x.flatMap((w, i) => (w === y[i] ? [] : [i]));
  return differ.length === 2 && x[differ[0] as number] === y[differ[1] as number] && x[differ[1] as number] === y[differ[0] as number];
}

/**
 * Whether two texts hold the same content words in the same places but one, replaced: "we moved
 * to paris last year with ..." / "... to rome ...", "my favourite colour is blue" / "... green".
 * A value written in lower case (a place, a colour, a drug) is a value all the same; a rewording
 * changes more than one word, or moves them.
 */
function substituted(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.filter((w, i) => w !== y[i]).length === 1;
}

/**
 * Whether one text's content words are the other's with words added, the rest in their order:
 * "... leaves from gate twelve" / "... gate twelve, cancelled", "my partner" / "my ex partner",
 * "I live in Lisbon" / "I may live in Lisbon". An added word that is not a filler (a stop word, or
 * a phrase of {@link FILLER_PHRASES}) qualifies, hedges or reverses what was said (testers' finds:
 * a cancellation reinforced the booking). A rewording moves or replaces words.
 */
function added(x: readonly string[], y: readonly string[]): boolean {
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length === long.length) return false;
  let i = 0;
  for (const w of long) if (i < short.length && w === short[i]) i += 1;
  return i === short.length;
}

/**
 * Phrases that say how a statement is told, not what it says ("Just so you know, I moved"): left
 * out before words are compared, as single filler words are (STOP_WORDS).
 */
const FILLER_PHRASES = /(?<![\p{L}])(?:just so you know|so you know|for your information|as i (?:said|mentioned|told you)|like i said|as you know|to be clear|heads up|quick update)(?![\p{L}])/giu;

/** Chinese and Japanese numerals: 五年 and 八年 are different values. */
const CJK_NUMERALS = /[〇一二三四五六七八九十百千万億两兩零]/gu;

/**
 * True when two texts state the same thing (near-duplicate integration and rehearsal;
 * docs/design.md §4.3): their content words are at least `threshold` similar, no value of one (a
 * name, a number, a letter: {@link valueWords}; a Chinese or Japanese numeral) is missing from
 * the other, and both or neither are negated. "I moved to Boston" and "I moved to Denver" are two
 * facts however long the sentence around them, and so are "I am not allergic to penicillin" and
 * "I am allergic to penicillin" ("not" is a stop word of the similarity), a question and the
 * statement it asks about, two tenses ("is" / "was pregnant"), two different small turning words
 * ("my" / "your job", "lights on" / "off") and two words swapped ("tea over coffee" / "coffee
 * over tea"), one word replaced in place ("moved to paris" / "to rome") or words added to the
 * same words ("gate twelve" / "gate twelve, cancelled"; "my partner" / "my ex partner"): merging them would
 * lose the new statement (ours; measured by bench/near-duplicates.ts; all but names and numbers
 * after newcomers' and testers' reports).
 */
export function sameStatement(typedA: string, typedB: string, threshold: number): boolean {
  // "don’t" as phones type it is "don't": the negation, tense and turning words read the straight form.
  const [a, b] = [straightApostrophes(typedA), straightApostrophes(typedB)];
  const xo = contentWordOrder(a.replace(FILLER_PHRASES, ' '));
  const yo = contentWordOrder(b.replace(FILLER_PHRASES, ' '));
  const x = new Set(xo);
  const y = new Set(yo);
  if (wordSimilarity(x, y) < threshold) return false;
  if (NEGATION.test(a) !== NEGATION.test(b)) return false;
  // A question is not the statement it asks about ("Am I allergic to penicillin?").
  const asks = (t: string) => /[?？][?？!！\s]*$/.test(t);
  if (asks(a) !== asks(b)) return false;
  if (tenseOf(a) !== tenseOf(b) || turningWords(a) !== turningWords(b) || swapped(xo, yo) || substituted(xo, yo) || added(xo, yo)) return false;
  const xv = valueWords(a);
  const yv = valueWords(b);
  for (const w of xv) if (!y.has(w) && !yv.has(w)) return false;
  for (const w of yv) if (!x.has(w) && !xv.has(w)) return false;
  const numerals = (t: string) => new Set(t.match(CJK_NUMERALS) ?? []);
  const [xn, yn] = [numerals(a), numerals(b)];
  return xn.size === yn.size && [...xn].every((c) => yn.has(c));
}

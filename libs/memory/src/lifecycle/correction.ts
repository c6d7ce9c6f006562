import { escapeRegExp, quoteAround } from '../visible-text';
import { contentWords } from './similarity';

/** Words a correction is said with, not what it is about ("Actually, it's 20mg now, not 10"). */
const SAID_WITH = new Set([
  ...['actually', 'sorry', 'wait', 'oops', 'nope', 'correction', 'now', 'make', 'meant', 'mean', 'rather', 'instead', 'right', 'wrong', 'typo', 'misspoke', 'earlier', 'said'],
  // German, French, Spanish: "Eigentlich sind es jetzt 100 mg, nicht 50", "En fait c'est 100 mg maintenant, pas 50", "En realidad son 100 mg ahora, no 50".
  ...['eigentlich', 'sind', 'ist', 'es', 'jetzt', 'nun', 'nicht', 'en', 'fait', 'est', 'maintenant', 'pas', 'ahora', 'son', 'realidad', 'no', 'de', 'hecho', 'ce', 'sont'],
]);
const HAS_DIGIT = /\p{N}/u;
/** A value: a word holding a digit ("10", "10mg", "7:45", "2027-03-13", "1,000", "3.5"). */
const VALUE = String.raw`[\p{L}\p{N}]*\p{N}(?:[\p{L}\p{N}%]|[.,:/-](?=\p{N}))*`;
/** A unit written apart from its number ("10 mg", "20 km"): a short word. */
const UNIT_APART = String.raw`(?:\s+([\p{L}%]{1,6}))?`;
/** "…, not 10." / "not 10 mg!" at the end: the old value and the unit written after it. */
// A currency sign before the value is no part of it: "$1,300 now, not $1,200" looks for "1,200" (helper 35's).
const OLD_VALUE = new RegExp(String.raw`(?<![\p{L}])(?:not|nicht|pas|no)\s+[$€£¥]?(${VALUE})${UNIT_APART}\s*[.!]*\s*$`, 'iu');
const NEW_VALUES = new RegExp(String.raw`(${VALUE})${UNIT_APART}`, 'giu');
const UNIT = /\p{N}([\p{L}%]+)$/u;
/** The line a kept correction adds (see {@link withCorrectedLines}). */
const CORRECTING = /^\(correcting: (.*)\)$/u;
/** A line a memory quotes of another: what a correction corrects, or what a change replaces (libs/memory life-change.ts). */
const QUOTED = /^\((?:correcting|previously): (.*)\)$/u;

/** The line quoted when `line` is a quote of another memory's (`(correcting: …)`, `(previously: …)`), else null. */
export function quotedLine(line: string): string | null {
  return QUOTED.exec(line.trim())?.[1] ?? null;
}

/**
 * A value's unit: attached ("10mg"), else the short word after it when that is no word a
 * correction is said with ("20 mg", not "20 now").
 */
function unitOf(value: string, apart: string | undefined): string | undefined {
  const attached = UNIT.exec(value)?.[1];
  if (attached) return attached;
  return apart && !SAID_WITH.has(apart.toLowerCase()) && contentWords(apart).size > 0 ? apart : undefined;
}

/** A correction that names only values: the old value, and the words that would hold it where it was said. */
export interface SubjectlessCorrection {
  oldValue: string;
  /**
   * What to look for, the most specific first: the old value with its unit, attached and apart
   * ("10mg", "10 mg"; the unit the new value has when the old has none), then as said ("10").
   */
  probes: string[];
}

/**
 * A correction that names nothing but values ("Actually, it is 20mg now, not 10.", "Sorry, I
 * meant 40, not 14", "it's 20 mg now, not 10 mg"): without the statement it corrects it says
 * nothing a search for the subject ("atorvastatin") could find, nor what it applies to. Null for
 * any other text, among them a correction that names its subject ("The meeting is at 3pm, not
 * 2pm": found by "meeting"). Also a word for the value when said as a correction
 * ({@link wordCorrection}). Ours (issue 15, "the newest fact wins"; newcomers' reports).
 */
export function subjectlessCorrection(text: string): SubjectlessCorrection | null {
  // Said with more after it ("Actually, it's 20mg now, not 10. I misread the prescription."): its own sentence is the correction.
  for (const sentence of text.split(/(?<=[.!?])\s+(?=\S)/)) {
    const found = sentenceCorrection(sentence.trim());
    if (found) return found;
  }
  return null;
}

function sentenceCorrection(said: string): SubjectlessCorrection | null {
  const match = OLD_VALUE.exec(said);
  if (!match) return wordCorrection(said);
  const oldValue = match[1] as string;
  const oldUnit = unitOf(oldValue, match[2]);
  const before = said.slice(0, match.index);
  const news = [...before.matchAll(NEW_VALUES)];
  const last = news[news.length - 1];
  const newUnit = last ? unitOf(last[1] as string, last[2]) : undefined;
  const units = new Set([oldUnit, newUnit].filter((u): u is string => u !== undefined).map((u) => u.toLowerCase()));
  const own = [...contentWords(said)].filter((w) => !SAID_WITH.has(w) && !HAS_DIGIT.test(w) && !units.has(w));
  if (own.length > 0) return null;
  const bare = (UNIT.test(oldValue) ? oldValue.slice(0, -(UNIT.exec(oldValue)?.[1] as string).length) : oldValue).toLowerCase();
  const unit = oldUnit ?? newUnit;
  const probes = unit ? [`${bare}${unit}`, `${bare} ${unit}`, bare] : [bare];
  return { oldValue, probes: [...new Set(probes.map((p) => p.toLowerCase()))] };
}

/** "…, not penicillin." at the end: the old value a word. */
const OLD_WORD = /\bnot\s+(\p{L}[\p{L}'’-]*)\s*[.!]*\s*$/iu;
/** Words "not" takes that name no value ("wait, not yet", "no, not really"). */
const NOT_A_VALUE = new Set(['yet', 'really', 'sure', 'quite', 'exactly', 'necessarily', 'anymore', 'again', 'always', 'ever', 'now', 'today', 'much', 'bad', 'good', 'great', 'true', 'right', 'wrong', 'everything', 'everyone', 'anything', 'all', 'me', 'you', 'us', 'them']);
/** How a correction opens when it names a word, not a number: "Actually ...", "Sorry, ...", "No, ...". */
const OPENS_CORRECTION = /^\W*(?:actually|sorry|oops|wait|no|nope|correction|i mean|i meant|make that)\b/i;

/**
 * The same with a word for the value ("Actually it's amoxicillin, not penicillin.", "No, it's
 * Anne, not Anna."): opened as a correction, at most two words of its own beside the old one (the
 * new value), the old word looked for as said (a newcomer's: scored 0.14 and discarded, the wrong
 * drug kept).
 */
function wordCorrection(said: string): SubjectlessCorrection | null {
  const old = OLD_WORD.exec(said)?.[1];
  if (!old || !OPENS_CORRECTION.test(said)) return null;
  const probe = old.toLowerCase();
  const own = [...contentWords(said)].filter((w) => !SAID_WITH.has(w) && w !== probe && !['no', 'nope', 'oops', 'mean'].includes(w));
  if (own.length > 2 || !contentWords(old).has(probe) || NOT_A_VALUE.has(probe)) return null;
  return { oldValue: old, probes: [probe] };
}

/** Longest quote of the corrected statement kept with a correction, in characters. */
export const CORRECTED_QUOTE_MAX = 300;

/**
 * What a subjectless correction corrects: of `earlier` (memories said before it, any order), the
 * latest whose content holds the most specific probe any of them holds, as a whole word ("10" is
 * not in "10mg" nor "100"; "10mg" is looked for before "10", so "we have 10 cats" said later is
 * not the dose), and of it the line that does (a chunk holds several messages), at most
 * {@link CORRECTED_QUOTE_MAX} characters around the value; then, when that memory is itself a
 * correction, the lines it corrects (a second correction keeps the subject the first one had).
 * Empty when none holds one.
 */
export function correctedLines(earlier: readonly { content: string; occurred_at: Date }[], correction: SubjectlessCorrection): string[] {
  const newestFirst = [...earlier].sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime());
  for (const probe of correction.probes) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(probe)}(?![\\p{L}\\p{N}])`, 'iu');
    const memory = newestFirst.find((m) => pattern.test(m.content));
    if (!memory) continue;
    const lines = memory.content.split('\n').map((l) => l.trim());
    const said = lines.map((l) => quotedLine(l) ?? l);
    const at = said.findIndex((l) => pattern.test(l));
    const line = said[at] as string;
    const quoted = [quoteAround(line, line.search(pattern), CORRECTED_QUOTE_MAX)];
    // A short answer's line with the question it answers ("user: Anna." after "assistant: What is your
    // sister's name?"): alone it says what the value was, not of what (helper 35's).
    const asked = at > 0 && quotedLine(lines[at] as string) === null ? (lines[at - 1] as string) : '';
    if (/[?？]$/.test(asked) && quotedLine(asked) === null) quoted.unshift(quoteAround(asked, asked.length, CORRECTED_QUOTE_MAX));
    // The lines this memory itself corrects, unless the value was found in one of them.
    if (!CORRECTING.test(lines[at] as string)) for (const l of lines) quoted.push(...(CORRECTING.exec(l)?.slice(1, 2) ?? []));
    return quoted;
  }
  return [];
}

/** A correction's content with what it corrects: searchable by its subject, readable on its own. */
export function withCorrectedLines(content: string, lines: readonly string[]): string {
  return [content, ...lines.map((l) => `(correcting: ${l})`)].join('\n');
}

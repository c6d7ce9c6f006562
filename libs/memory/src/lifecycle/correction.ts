import { contentWords } from './similarity';

/** Words a correction is said with, not what it is about ("Actually, it's 20mg now, not 10"). */
const SAID_WITH = new Set(['actually', 'sorry', 'wait', 'oops', 'nope', 'correction', 'now', 'make', 'meant', 'mean', 'rather', 'instead', 'right', 'wrong', 'typo', 'misspoke', 'earlier', 'said']);
const HAS_DIGIT = /\p{N}/u;
/** "…, not 10." at the end: the old value, which holds a digit (a dose, a time, a date, a count). */
const OLD_VALUE = /\bnot\s+([\p{L}\p{N}][\p{L}\p{N}.,:/%-]*?)\s*[.!]*\s*$/iu;
const UNIT = /\p{N}([\p{L}%]+)$/u;

/** A correction that names only values: the old value, and the words that would hold it where it was said. */
export interface SubjectlessCorrection {
  oldValue: string;
  /** Lower-case words to look for, the most specific first: the old value with the new value's unit when it has none, then as said ("10" → "10mg", "10"). */
  probes: string[];
}

/**
 * A correction that names nothing but values ("Actually, it is 20mg now, not 10.", "Sorry, I
 * meant 40, not 14"): without the statement it corrects it says nothing a search for the subject
 * ("atorvastatin") could find, nor what it applies to. Null for any other text, among them a
 * correction that names its subject ("The meeting is at 3pm, not 2pm": found by "meeting").
 * Ours (issue 15, "the newest fact wins"; a newcomer's report).
 */
export function subjectlessCorrection(text: string): SubjectlessCorrection | null {
  const match = OLD_VALUE.exec(text.trim());
  if (!match) return null;
  const oldValue = (match[1] as string).replace(/[.,:/-]+$/, '');
  if (!HAS_DIGIT.test(oldValue)) return null;
  const own = [...contentWords(text)].filter((w) => !SAID_WITH.has(w) && !HAS_DIGIT.test(w));
  if (own.length > 0) return null;
  const before = text.slice(0, match.index);
  const newValue = (before.match(/[\p{L}\p{N}]*\p{N}[\p{L}\p{N}%]*/gu) ?? []).at(-1);
  const unit = newValue ? UNIT.exec(newValue)?.[1] : undefined;
  // The most specific first: "10mg" names the dose where "10" may be ten cats.
  const probes = [oldValue.toLowerCase()];
  if (unit && !UNIT.test(oldValue)) probes.unshift(`${oldValue}${unit}`.toLowerCase());
  return { oldValue, probes };
}

/** Longest quote of the corrected statement kept with a correction, in characters. */
export const CORRECTED_QUOTE_MAX = 300;

/**
 * The line a subjectless correction corrects: of `earlier` (memories said before it, any order),
 * the latest whose content holds the most specific probe any of them holds, as a whole word
 * ("10" is not in "10mg" nor "100"; "10mg" is looked for before "10"), and of it the first line that does
 * (a chunk holds several messages), shortened to {@link CORRECTED_QUOTE_MAX} characters at a word.
 * Undefined when none holds one.
 */
export function correctedLine(earlier: readonly { content: string; occurred_at: Date }[], correction: SubjectlessCorrection): string | undefined {
  // As whole words, by pattern: "7:45" or "2027-03-13" are several of contentWords' words.
  const newestFirst = [...earlier].sort((a, b) => b.occurred_at.getTime() - a.occurred_at.getTime());
  let line: string | undefined;
  // The most specific probe that anything holds decides ("10mg" before "10").
  for (const probe of correction.probes) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${probe.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu');
    line = newestFirst.find((m) => pattern.test(m.content))?.content.split('\n').find((l) => pattern.test(l))?.trim();
    if (line) break;
  }
  if (!line) return undefined;
  if (line.length <= CORRECTED_QUOTE_MAX) return line;
  const cut = line.slice(0, CORRECTED_QUOTE_MAX);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), CORRECTED_QUOTE_MAX / 2))}…`;
}

/** A correction's content with the statement it corrects: searchable by its subject, readable on its own. */
export function withCorrectedLine(content: string, line: string): string {
  return `${content}\n(correcting: ${line})`;
}

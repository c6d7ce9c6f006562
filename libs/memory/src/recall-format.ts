import { MEMORY_PRIORITIES, type MemoryPriority } from './memory.constants';

/** One memory as recall shows it. */
export interface RecallEntry {
  category: string;
  key: string;
  content: string;
  tags: readonly string[];
  priority: MemoryPriority;
  verified: boolean;
  updated_at: Date;
  id: string;
  /** When what it remembers happened (the event time). */
  occurred_at?: Date;
  /** When it was stored. */
  created_at?: Date;
  /** When a repetition last said it again; null or absent: never. */
  restated_at?: Date | null;
}

/** How old a memory's event must be, at the recall, for every memory to be dated: a day (ms). */
const DATED_AFTER_MS = 86_400_000;

/**
 * A remembered event, which recall dates: a conversation's episode (key `episode_…`), a memory
 * whose event time is not when it was stored (an import, a fact said earlier, an appointment to
 * come), or, given the recall's time `at`, any memory whose event is a day old or more (a fact
 * stored months ago beside one stored this week: a tester's find, they read as equally current).
 * A memory said again later ({@link saidAgain}) is dated too. A keyed write of today has no date
 * line: seed 002's layout exactly.
 */
export function isDated(entry: Pick<RecallEntry, 'key' | 'occurred_at' | 'created_at' | 'restated_at'>, at?: Date): boolean {
  if (!entry.occurred_at) return false;
  if (saidAgain(entry)) return true;
  if (at !== undefined && at.getTime() - entry.occurred_at.getTime() >= DATED_AFTER_MS) return true;
  return entry.key.startsWith('episode_') || (entry.created_at !== undefined && Math.abs(entry.occurred_at.getTime() - entry.created_at.getTime()) >= 1000);
}

const seconds = (at: Date) => `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/**
 * When a repetition said the memory again, a second or more after its event time (what the date
 * line shows to the second); null otherwise.
 */
export function saidAgain(entry: Pick<RecallEntry, 'occurred_at' | 'restated_at'>): Date | null {
  const again = entry.restated_at;
  if (!again || !entry.occurred_at || again.getTime() - entry.occurred_at.getTime() < 1000) return null;
  return again;
}

/**
 * A remembered event's date line: `Date: 2026-03-06 15:00:12 UTC` (seconds, UTC: statements a
 * few seconds apart in a chat read in their order); with `, said again 2026-05-02 09:30:05 UTC`
 * when a repetition said it again later (ours: "Paris", "Berlin", then "Paris" again reads as
 * current, not as the older of the two).
 */
export function recallDate(at: Date, again?: Date | null): string {
  return `Date: ${seconds(at)}${again ? `, said again ${seconds(again)}` : ''}`;
}

/** The header figures of a recall: memories of the mind that recall can show (not expired). */
export interface RecallSummary {
  mindName: string;
  /** When the recall is made: a memory whose event is a day older is dated ({@link isDated}). */
  at?: Date;
  total: number;
  verified: number;
  unverified: number;
}

const PRIORITY_RANK: Record<MemoryPriority, number> = Object.fromEntries(
  MEMORY_PRIORITIES.map((p, i) => [p, i]),
) as Record<MemoryPriority, number>;

/**
 * Recall order (seed 002 "회상 동작"): priority critical → low, then newest first
 * (`updated_at` descending), then id descending so the order is total.
 */
export function compareRecall(a: RecallEntry, b: RecallEntry): number {
  return (
    PRIORITY_RANK[b.priority] - PRIORITY_RANK[a.priority] ||
    b.updated_at.getTime() - a.updated_at.getTime() ||
    (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
  );
}

/**
 * The plain-text recall of a mind, exactly in seed 002's layout:
 *
 * ```
 * Mind: Michael's Mind
 * Memories: 12 total (10 verified, 2 unverified)
 *
 * [001] identity (CRITICAL) [verified]
 *   user_name
 *   Michael Schäfer
 *   Tags: person, identity
 * ```
 *
 * Entries are numbered from 001 in the order given (sort them with {@link compareRecall});
 * a remembered event ({@link isDated}) has `  Date: YYYY-MM-DD HH:MM:SS UTC` after its key;
 * multi-line content keeps its lines, each indented; the `Tags:` line is left out when a
 * memory has none. Ends with a newline.
 */
export function formatRecall(summary: RecallSummary, entries: readonly RecallEntry[]): string {
  return recallHeader(summary) + entries.map((entry, index) => recallBlock(entry, index + 1, summary.at)).join('');
}

/** The two header lines, each ended by a newline. */
export function recallHeader(summary: RecallSummary): string {
  // Names are validated one-line; this keeps the header one line whatever is stored.
  return (
    `Mind: ${summary.mindName.replace(/[\r\n\u2028\u2029]+/g, ' ')}\n` +
    `Memories: ${summary.total} total (${summary.verified} verified, ${summary.unverified} unverified)\n`
  );
}

/**
 * Every way text breaks a line as a reader (a model, a terminal) sees it: CRLF, LF, CR, vertical
 * tab, form feed, NEL, and the Unicode line and paragraph separators. Content is split on all of
 * them, so that each of its lines is indented: a memory's text cannot start a line of its own and
 * pass for an entry's header (`\r[002] identity (CRITICAL) [verified]` did; a tester's find).
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * One entry: a blank line, then `[NNN] category (PRIORITY) [verified]`, key, content, tags. A
 * remembered event ({@link isDated}) has a date line after its key (ours, issue 15: so that a
 * model reading two statements of the same thing can tell which is current); the rest is seed 002's.
 */
export function recallBlock(entry: RecallEntry, number: number, at?: Date): string {
  const lines = [
    '',
    `[${String(number).padStart(3, '0')}] ${entry.category} (${entry.priority.toUpperCase()}) ` + (entry.verified ? '[verified]' : '[unverified]'),
    `  ${entry.key}`,
    ...(isDated(entry, at) ? [`  ${recallDate(entry.occurred_at as Date, saidAgain(entry))}`] : []),
    ...entry.content.split(LINE_BREAK).map((line) => `  ${line}`),
  ];
  if (entry.tags.length > 0) lines.push(`  Tags: ${entry.tags.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Packs entries, in the order given, into a recall of at most `maxTokens` tokens (the header
 * included): each entry that still fits is taken, one that does not is skipped so that smaller
 * ones after it may fit. `countTokens` is the tokenizer (the API uses gpt-tokenizer, o200k_base).
 *
 * @returns the text, the entries taken (in recall order) and its token count.
 */
export function packRecall(
  summary: RecallSummary,
  ordered: readonly RecallEntry[],
  maxTokens: number,
  countTokens: (text: string) => number,
): { text: string; entries: RecallEntry[]; tokens: number } {
  const header = recallHeader(summary);
  let used = countTokens(header);
  const taken: RecallEntry[] = [];
  for (const entry of ordered) {
    // Numbers widen past 999; measuring the block with its own number keeps the count exact enough,
    // and the whole text is measured again below.
    const cost = countTokens(recallBlock(entry, taken.length + 1, summary.at));
    if (used + cost > maxTokens) continue;
    taken.push(entry);
    used += cost;
  }
  let text = formatRecall(summary, taken);
  let tokens = countTokens(text);
  // Tokens of joined text can differ by one or two from the sum of its parts.
  while (tokens > maxTokens && taken.length > 0) {
    taken.pop();
    text = formatRecall(summary, taken);
    tokens = countTokens(text);
  }
  return { text, entries: taken, tokens };
}

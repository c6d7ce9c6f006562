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
}

/** The header figures of a recall: memories of the mind that recall can show (not expired). */
export interface RecallSummary {
  mindName: string;
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
 * multi-line content keeps its lines, each indented; the `Tags:` line is left out when a
 * memory has none. Ends with a newline.
 */
export function formatRecall(summary: RecallSummary, entries: readonly RecallEntry[]): string {
  const lines = [
    // Names are validated one-line; this keeps the header one line whatever is stored.
    `Mind: ${summary.mindName.replace(/[\r\n\u2028\u2029]+/g, ' ')}`,
    `Memories: ${summary.total} total (${summary.verified} verified, ${summary.unverified} unverified)`,
  ];
  entries.forEach((entry, index) => {
    lines.push('');
    lines.push(
      `[${String(index + 1).padStart(3, '0')}] ${entry.category} (${entry.priority.toUpperCase()}) ` +
        (entry.verified ? '[verified]' : '[unverified]'),
    );
    lines.push(`  ${entry.key}`);
    for (const line of entry.content.split(/\r?\n/)) lines.push(`  ${line}`);
    if (entry.tags.length > 0) lines.push(`  Tags: ${entry.tags.join(', ')}`);
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Leave-one-conversation-out cross-validation of a setting over `bench:locomo` runs: each run is
 * one value of the setting (its `--json` report, which has `by_conversation`), or over
 * `bench:conversation` runs (`--metric stream_recall_at_10`, `keyed_recall_at_10`, or at 5); for each
 * conversation the value is chosen on the others (the best question-weighted metric) and scored
 * on it. What a tuned default is worth on conversations it was not tuned on.
 *
 *   npx tsx bench/cross-validate.ts --runs 1=/tmp/cv-1.json,0.5=/tmp/cv-0.5.json,0.1=/tmp/cv-0.1.json [--metric recall_at_10] [--category 1]
 *
 * Prints each value's metric per conversation and overall, then per held-out conversation the
 * value chosen without it and its score, and the held-out overall beside the first run's (the
 * baseline, e.g. today's default).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// --category N: tune and score on one LoCoMo category (its report's by_conversation_category).
const { values: args } = parseArgs({ options: { runs: { type: 'string' }, metric: { type: 'string', default: 'recall_at_10' }, category: { type: 'string' } } });
if (!args.runs) {
  process.stderr.write('give --runs label=report.json,... (bench:locomo --json reports)\n');
  process.exit(2);
}
type PerConversation = Record<string, { n: number } & Record<string, number>>;
const metric = args.metric as string;
/** A `bench:conversation --json` report's conversation (its per-question recall since 2026-12-04). */
interface ConversationRun {
  sample_id: string;
  s5: number;
  s10: number;
  k5: number;
  k10: number;
  recall10?: { stream: number[] };
}
/** bench:conversation's metrics under the names --metric takes: stream_recall_at_10, keyed_recall_at_10, and at 5. */
function fromConversationRun(conversations: ConversationRun[]): PerConversation {
  return Object.fromEntries(
    conversations.map((c) => {
      if (!c.recall10) throw new Error('a bench:conversation report without per-question recall (rerun bench:conversation)');
      return [c.sample_id, { n: c.recall10.stream.length, stream_recall_at_5: c.s5, stream_recall_at_10: c.s10, keyed_recall_at_5: c.k5, keyed_recall_at_10: c.k10 }];
    }),
  );
}
const runs = args.runs.split(',').map((pair) => {
  const [label, file] = pair.split('=') as [string, string];
  const report = JSON.parse(readFileSync(file, 'utf8')) as { by_conversation?: PerConversation; by_conversation_category?: Record<string, PerConversation>; conversations?: ConversationRun[] };
  const by = report.conversations && !args.category ? fromConversationRun(report.conversations) : args.category ? report.by_conversation_category?.[args.category] : report.by_conversation;
  if (!by) throw new Error(`${file} has no by_conversation${args.category ? '_category' : ''} (rerun bench:locomo)`);
  return { label, by };
});
const conversations = Object.keys(runs[0]?.by ?? {});
/** The question-weighted metric of a run over some conversations. */
const over = (by: PerConversation, ids: readonly string[]) => {
  const n = ids.reduce((s, id) => s + (by[id]?.n ?? 0), 0);
  return ids.reduce((s, id) => s + (by[id]?.[metric] ?? 0) * (by[id]?.n ?? 0), 0) / Math.max(1, n);
};
const f = (x: number) => x.toFixed(3);

const lines = [`${metric} by value (in sample)`, `value   ${conversations.map((c) => c.padStart(8)).join('')}  overall`];
for (const r of runs) lines.push(`${r.label.padEnd(8)}${conversations.map((c) => f(r.by[c]?.[metric] ?? 0).padStart(8)).join('')}  ${f(over(r.by, conversations))}`);
lines.push('', 'held out   chosen on the others   held-out score   baseline (first run)');
let heldOut = 0;
let total = 0;
for (const c of conversations) {
  const train = conversations.filter((x) => x !== c);
  const best = runs.reduce((a, b) => (over(b.by, train) > over(a.by, train) ? b : a));
  const n = best.by[c]?.n ?? 0;
  heldOut += (best.by[c]?.[metric] ?? 0) * n;
  total += n;
  lines.push(`${c.padEnd(11)}${best.label.padEnd(23)}${f(best.by[c]?.[metric] ?? 0).padEnd(17)}${f(runs[0]?.by[c]?.[metric] ?? 0)}`);
}
lines.push(`overall    ${''.padEnd(23)}${f(heldOut / Math.max(1, total)).padEnd(17)}${f(over(runs[0]?.by ?? {}, conversations))}`);
process.stdout.write(`${lines.join('\n')}\n`);

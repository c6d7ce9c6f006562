/**
 * Precision and recall of near-duplicate integration (docs/design.md §4.3: content words ≥ 0.85
 * similar and no value changed → the same fact, reinforced instead of copied; libs/memory
 * `sameStatement`), beside the word similarity alone, on pairs built from LoCoMo turns:
 *
 *   npx tsx bench/near-duplicates.ts --file ../shared/bench-data/locomo-dev.json
 *
 * Positives (the same fact reworded): each turn with a filler before it ("Noted: ", "FYI, ",
 * "btw ", "Just so you know, "), its punctuation or case changed, or contractions spelt out.
 * Negatives: the same turn with one value changed (a capitalised name or a number swapped for
 * another turn's: a new fact that must not be merged into the old one), and each turn paired with
 * the most similar other turn of the same speaker (by the same word similarity: the hardest
 * real pair). Turns with fewer than 4 content words are left out (they are chatter). Deterministic.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_LIFECYCLE, contentWords, sameStatement, wordSimilarity } from '@engram/memory';
import { parseConversation } from '../scripts/locomo';

const { values: args } = parseArgs({ options: { file: { type: 'string' } } });
if (!args.file) throw new Error('--file is required (the LoCoMo dev file)');
const threshold = DEFAULT_LIFECYCLE.consolidation.near_duplicate_similarity;

const FILLERS = ['Noted: ', 'FYI, ', 'btw ', 'Just so you know, '];
const CONTRACTIONS: [RegExp, string][] = [[/\bI'm\b/g, 'I am'], [/\bI've\b/g, 'I have'], [/\bcan't\b/g, 'cannot'], [/\bit's\b/gi, 'it is'], [/\bdon't\b/g, 'do not']];

const rewordings = (text: string): string[] => {
  const out = FILLERS.map((f) => f + text);
  out.push(text.replace(/[.!?]+\s*$/, '') + '.', text.toLowerCase());
  const spelt = CONTRACTIONS.reduce((t, [re, to]) => t.replace(re, to), text);
  if (spelt !== text) out.push(spelt);
  return out;
};

interface Pair {
  a: string;
  b: string;
  same: boolean;
  kind: string;
}

const pairs: Pair[] = [];
const conversations = (JSON.parse(readFileSync(args.file, 'utf8')) as unknown[]).map(parseConversation);
for (const c of conversations) {
  const turns = c.turns.filter((t) => contentWords(t.utterance).size >= 4);
  const names = [...new Set(turns.flatMap((t) => t.utterance.match(/(?<=[a-z,] )[A-Z][a-z]{2,}/g) ?? []))];
  const said = (speaker: string, text: string) => `${speaker}: ${text}`;
  turns.forEach((t, i) => {
    for (const r of rewordings(t.utterance)) pairs.push({ a: said(t.speaker, t.utterance), b: said(t.speaker, r), same: true, kind: 'reworded' });
    // One value changed: a name (another of the conversation's) or a number (+1).
    const name = (t.utterance.match(/(?<=[a-z,] )[A-Z][a-z]{2,}/) ?? [])[0];
    if (name && names.length > 1) {
      const other = names[(names.indexOf(name) + 1 + (i % (names.length - 1))) % names.length] as string;
      if (other !== name) pairs.push({ a: said(t.speaker, t.utterance), b: said(t.speaker, t.utterance.replace(name, other)), same: false, kind: 'value changed' });
    }
    const number = /\b\d+\b/.exec(t.utterance);
    if (number) pairs.push({ a: said(t.speaker, t.utterance), b: said(t.speaker, t.utterance.replace(number[0], String(Number(number[0]) + 1))), same: false, kind: 'value changed' });
    // The hardest real pair: the most similar other turn of the same speaker.
    let best: string | undefined;
    let bestSimilarity = -1;
    const words = contentWords(said(t.speaker, t.utterance));
    for (const u of turns) {
      if (u === t || u.speaker !== t.speaker || u.utterance === t.utterance) continue;
      const s = wordSimilarity(words, said(u.speaker, u.utterance));
      if (s > bestSimilarity) [best, bestSimilarity] = [said(u.speaker, u.utterance), s];
    }
    if (best) pairs.push({ a: said(t.speaker, t.utterance), b: best, same: false, kind: 'nearest other turn' });
  });
}

const merged = (p: Pair) => sameStatement(p.a, p.b, threshold);
// Words alone, as integration decided before values were compared.
const byWords = (p: Pair) => wordSimilarity(p.a, p.b) >= threshold;
const count = (f: (p: Pair) => boolean) => pairs.filter(f).length;
const tp = count((p) => p.same && merged(p));
const fp = count((p) => !p.same && merged(p));
const fn = count((p) => p.same && !merged(p));
process.stdout.write(`near-duplicate integration (content words ≥ ${threshold} similar) on ${pairs.length} pairs from ${conversations.length} LoCoMo conversations\n`);
for (const kind of [...new Set(pairs.map((p) => p.kind))]) {
  const of = pairs.filter((p) => p.kind === kind);
  process.stdout.write(`  ${kind.padEnd(20)} ${String(of.length).padStart(6)} pairs, merged ${(of.filter(merged).length / of.length).toFixed(3)}\n`);
}
process.stdout.write(`precision ${(tp / (tp + fp)).toFixed(3)}, recall ${(tp / (tp + fn)).toFixed(3)}\n`);
const wtp = count((p) => p.same && byWords(p));
const wfp = count((p) => !p.same && byWords(p));
const wfn = count((p) => p.same && !byWords(p));
process.stdout.write(`words alone (no value check): precision ${(wtp / (wtp + wfp)).toFixed(3)}, recall ${(wtp / (wtp + wfn)).toFixed(3)}\n`);

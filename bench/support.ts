import { readFile } from 'node:fs/promises';
import { parseConversation } from '../scripts/locomo';

/** Helpers shared by the benchmark scripts. */

/** mulberry32: a seeded PRNG, so every run builds the same data. @returns numbers in [0, 1) */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-th percentile (0..100) of `xs` by the nearest-rank rule; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** LoCoMo turns (`speaker: text`, or the text alone) and `count` questions drawn with `random`, read from `file` where it lies. */
export async function locomoCorpus(file: string, o: { count: number; random: () => number; speakers: boolean }): Promise<{ turns: string[]; queries: string[] }> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as unknown[];
  const conversations = (Array.isArray(raw) ? raw : [raw]).map(parseConversation);
  const turns = conversations.flatMap((c) => c.turns.map((t) => (o.speakers ? `${t.speaker}: ${t.content}` : t.content)));
  const questions = conversations.flatMap((c) => c.qa.map((q) => q.question)).filter((q) => q.trim().length > 0);
  const queries = Array.from({ length: Math.min(o.count, questions.length) }, () => questions[Math.floor(o.random() * questions.length)] as string);
  return { turns, queries };
}

/** The URLs of scratch database `name` on the server of `adminUrl`: as its owner, and as engram_app (what the service connects as). */
export function scratchUrls(adminUrl: string, name: string): { owner: string; app: string } {
  const owner = new URL(adminUrl);
  owner.pathname = `/${name}`;
  const app = new URL(owner.toString());
  app.username = 'engram_app';
  app.password = '';
  return { owner: owner.toString(), app: app.toString() };
}

/** A script's way out: prints `<script>: <message>` on stderr and exits with 1. */
export function failure(script: string): (message: string) => never {
  return (message) => {
    process.stderr.write(`${script}: ${message}\n`);
    process.exit(1);
  };
}

/** One ranking's results, best first, each with the LoCoMo turns (dia_ids) it covers. */
export interface TurnRanking {
  results: readonly { turns: readonly string[] }[];
}

/** Evidence recall@k: |evidence ∩ turns of the top k| / |evidence| (a result covering several turns counts all of them). */
export function recallAt(r: TurnRanking, evidence: readonly string[], k: number): number {
  const found = new Set(r.results.slice(0, k).flatMap((x) => x.turns));
  return evidence.filter((e) => found.has(e)).length / evidence.length;
}

/** 1 / rank of the first result in the top 10 holding an evidence turn; 0 when none does. */
export function reciprocalRank(r: TurnRanking, evidence: readonly string[]): number {
  const i = r.results.slice(0, 10).findIndex((x) => x.turns.some((t) => evidence.includes(t)));
  return i < 0 ? 0 : 1 / (i + 1);
}

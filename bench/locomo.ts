/**
 * LoCoMo retrieval benchmark against a running Engram, with two in-process baselines on the same
 * turns: BM25 (wink-bm25-text-search) and exact vector search with the same local embedder.
 *
 *   npm run bench:locomo -- --file ../shared/bench-data/locomo-dev.json [--url http://localhost:3000] [--json out.json]
 *     [--email a@b.c] [--settings '{"retrieval":{"match_share":0.5}}'] [--bare]
 *
 * For each conversation: a fresh mind; every turn stored as the importer stores it; every QA
 * question run as a search (top 10, sequential, so latency is per request). Reported per category
 * (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial) and overall for 1-4:
 * evidence recall@1/5/10 (|evidence ∩ top-k turns| / |evidence|, over items with at least one
 * parseable evidence id; a memory covering several turns counts all of them), MRR (first
 * evidence turn in the top 10), mean tokens returned at k = 5 and 10 (gpt-tokenizer, o200k),
 * and search latency p50/p95 over HTTP.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer';
import pg from 'pg';
import bm25 from 'wink-bm25-text-search';
import nlp from 'wink-nlp-utils';
import { HashingEmbedder } from '@engram/embeddings';
import { parseConversation, parseEvidence, turnMemory, type LocomoConversation } from '../scripts/locomo';
import { recallAt, reciprocalRank } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    url: { type: 'string', default: 'http://localhost:3000' },
    json: { type: 'string' },
    email: { type: 'string', default: 'locomo-bench@engram.local' },
    password: { type: 'string', default: 'locomo-bench-password' },
    // Lifecycle overrides for the bench's tenant (PATCH /v1/tenant/settings/lifecycle), as JSON:
    // to compare settings on one server, each run with its own --email.
    settings: { type: 'string' },
    // Every turn as a plain keyed write (category, key and content: no tags, no dates, no place in
    // a conversation), as bench:peers writes them and as an API user without a conversation does.
    bare: { type: 'boolean', default: false },
    // The association graph (issue 19): wait until the association job has linked each
    // conversation's memories before its questions (the server must run the job, e.g.
    // ASSOCIATIONS_INTERVAL_MS=1000).
    associations: { type: 'boolean', default: false },
    // With --associations: search each question in a second tenant with the expansion off too
    // (account `plain-<email>`), on the same turns in the same run.
    compare: { type: 'boolean', default: false },
    // PostgreSQL mode: the database's owner URL, to ANALYZE memories and their links after each
    // conversation is loaded (and linked). A server without autovacuum (the shared test server
    // here) otherwise plans every search with the statistics of a nearly empty table.
    analyze: { type: 'string' },
  },
});

type Headers = Record<string, string>;
const CATEGORIES = [1, 2, 3, 4, 5];
const NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

function fail(message: string): never {
  process.stderr.write(`bench:locomo: ${message}\n`);
  process.exit(1);
}

async function api<T>(method: string, path: string, headers: Headers, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, args.url), {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** One ranking of one question: the turns of each returned result, best first, and their tokens. */
interface Ranking {
  results: { turns: string[]; tokens: number }[];
  ms?: number;
}

interface Item {
  conversation: string;
  category: number;
  evidence: string[];
  rankings: Record<string, Ranking>;
}

interface Metrics {
  n: number;
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  mrr: number;
  tokens_at_5: number;
  tokens_at_10: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

function metrics(items: Item[], system: string): Metrics {
  const mean = (f: (i: Item) => number) => (items.length ? items.reduce((s, i) => s + f(i), 0) / items.length : 0);
  const tokens = (i: Item, k: number) => (i.rankings[system] as Ranking).results.slice(0, k).reduce((s, x) => s + x.tokens, 0);
  const ms = items.map((i) => i.rankings[system]?.ms).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
  return {
    n: items.length,
    recall_at_1: mean((i) => recallAt(i.rankings[system] as Ranking, i.evidence, 1)),
    recall_at_5: mean((i) => recallAt(i.rankings[system] as Ranking, i.evidence, 5)),
    recall_at_10: mean((i) => recallAt(i.rankings[system] as Ranking, i.evidence, 10)),
    mrr: mean((i) => reciprocalRank(i.rankings[system] as Ranking, i.evidence)),
    tokens_at_5: mean((i) => tokens(i, 5)),
    tokens_at_10: mean((i) => tokens(i, 10)),
    p50_ms: percentile(ms, 0.5),
    p95_ms: percentile(ms, 0.95),
  };
}

async function signIn(email = args.email as string): Promise<Headers> {
  const reg = await api<{ token?: string }>('POST', '/v1/auth/register', {}, { email, password: args.password, tenant_name: 'LoCoMo bench' });
  let token = reg.body?.token;
  if (reg.status === 409) {
    const login = await api<{ token?: string }>('POST', '/v1/auth/login', {}, { email, password: args.password });
    token = login.body?.token;
  }
  if (!token) fail(`could not sign in (register answered ${reg.status})`);
  return { Authorization: `Bearer ${token}` };
}

/** A fresh mind for one conversation, with every turn stored as the importer stores it. */
async function loadConversation(auth: Headers, c: LocomoConversation): Promise<Headers> {
  const mind = await api<{ id: string }>('POST', '/v1/minds', auth, { name: `bench ${c.sampleId} ${Date.now()}` });
  if (mind.status !== 201) fail(`creating a mind answered ${mind.status}`);
  const headers = { ...auth, 'X-Mind-Id': mind.body.id };
  const items = c.turns.map((_t, i) => {
    const m = turnMemory(c, i);
    return args.bare ? { category: m.category, key: m.key, content: m.content, source_refs: m.source_refs } : m;
  });
  for (let i = 0; i < items.length; i += 500) {
    const res = await api('POST', '/v1/memory/batch', headers, { items: items.slice(i, i + 500) });
    if (res.status !== 200) fail(`batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return headers;
}

/** Waits until the association job has linked every memory of the mind (GET /v1/memory/stats). */
async function linked(headers: Headers): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const stats = await api<{ associations: { unlinked: number } }>('GET', '/v1/memory/stats', headers);
    if (stats.status !== 200) fail(`stats answered ${stats.status}`);
    if (stats.body.associations.unlinked === 0) return;
    if (Date.now() > deadline) fail('the association job did not link the memories in 10 minutes: is ASSOCIATIONS_INTERVAL_MS set on the server?');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('analyze memories, memory_associations');
  } finally {
    await client.end();
  }
}

async function applySettings(auth: Headers, settings: unknown): Promise<void> {
  const res = await api('PATCH', '/v1/tenant/settings/lifecycle', auth, settings);
  if (res.status !== 200) fail(`the settings answered ${res.status}: ${JSON.stringify(res.body)}`);
}

function bm25Baseline(c: LocomoConversation) {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { body: 1 } });
  engine.definePrepTasks([nlp.string.lowerCase, nlp.string.removeExtraSpaces, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem, nlp.tokens.propagateNegations]);
  c.turns.forEach((t, i) => engine.addDoc({ body: t.content }, i));
  engine.consolidate();
  return (q: string): number[] => engine.search(q, 10).map((r) => Number(r[0]));
}

function exactVectorBaseline(c: LocomoConversation) {
  const embedder = new HashingEmbedder();
  const vectors = c.turns.map((t) => embedder.embedOne(t.content));
  return (q: string): number[] => {
    const qv = embedder.embedOne(q);
    return vectors
      .map((v, i) => [i, v.reduce((s, x, j) => s + x * (qv[j] as number), 0)] as [number, number])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([i]) => i);
  };
}

async function main(): Promise<void> {
  if (!args.file) fail('--file is required (e.g. ../shared/bench-data/locomo-dev.json)');
  const data: unknown = JSON.parse(await readFile(args.file, 'utf8'));
  if (!Array.isArray(data)) fail('the file is not a JSON array of conversations');
  const auth = await signIn();
  const settings = (args.settings ? JSON.parse(args.settings) : {}) as Record<string, Record<string, unknown>>;
  if (args.settings) await applySettings(auth, settings);
  // The same settings with the expansion off, in a tenant of its own.
  const plainAuth = args.associations && args.compare ? await signIn(`plain-${args.email}`) : null;
  if (plainAuth) await applySettings(plainAuth, { ...settings, associations: { ...(settings.associations ?? {}), expand: false } });
  const items: Item[] = [];
  let skippedEvidence = 0;
  let withoutEvidence = 0;
  for (const raw of data) {
    const c = parseConversation(raw);
    const headers = await loadConversation(auth, c);
    const plainHeaders = plainAuth ? await loadConversation(plainAuth, c) : null;
    if (args.associations) {
      await linked(headers);
      if (plainHeaders) await linked(plainHeaders);
    }
    if (args.analyze) await analyze(args.analyze);
    const known = new Set(c.turns.map((t) => t.diaId));
    const tokensOf = c.turns.map((t) => countTokens(t.content));
    const asRanking = (turnIndexes: number[]): Ranking => ({ results: turnIndexes.map((i) => ({ turns: [c.turns[i]?.diaId ?? ''], tokens: tokensOf[i] ?? 0 })) });
    const runBm25 = bm25Baseline(c);
    const runExact = exactVectorBaseline(c);
    for (const qa of c.qa) {
      const ev = parseEvidence(qa.evidence, known);
      skippedEvidence += ev.skipped.length;
      if (ev.ids.length === 0) {
        withoutEvidence += 1;
        continue;
      }
      const t0 = performance.now();
      const res = await api<{ items: { content: string; source_refs: string[] }[] }>('GET', `/v1/memory/search?limit=10&q=${encodeURIComponent(qa.question.slice(0, 1000))}`, headers);
      const ms = performance.now() - t0;
      if (res.status !== 200) fail(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
      const t1 = performance.now();
      const plain = plainHeaders ? await api<{ items: { content: string; source_refs: string[] }[] }>('GET', `/v1/memory/search?limit=10&q=${encodeURIComponent(qa.question.slice(0, 1000))}`, plainHeaders) : null;
      const plainMs = performance.now() - t1;
      if (plain && plain.status !== 200) fail(`search answered ${plain.status}: ${JSON.stringify(plain.body)}`);
      items.push({
        conversation: c.sampleId,
        category: qa.category,
        evidence: ev.ids,
        rankings: {
          engram: { results: res.body.items.map((m) => ({ turns: m.source_refs, tokens: countTokens(m.content) })), ms },
          ...(plain ? { plain: { results: plain.body.items.map((m) => ({ turns: m.source_refs, tokens: countTokens(m.content) })), ms: plainMs } } : {}),
          bm25: asRanking(runBm25(qa.question)),
          exact: asRanking(runExact(qa.question)),
        },
      });
    }
    process.stderr.write(`${c.sampleId}: ${c.turns.length} turns, ${c.qa.length} questions\n`);
  }

  const core = items.filter((i) => i.category >= 1 && i.category <= 4);
  const report = {
    overall: metrics(core, 'engram'),
    by_category: Object.fromEntries(CATEGORIES.map((cat) => [cat, metrics(items.filter((i) => i.category === cat), 'engram')])),
    baselines: {
      bm25: { overall: metrics(core, 'bm25'), by_category: Object.fromEntries(CATEGORIES.map((cat) => [cat, metrics(items.filter((i) => i.category === cat), 'bm25')])) },
      exact: { overall: metrics(core, 'exact'), by_category: Object.fromEntries(CATEGORIES.map((cat) => [cat, metrics(items.filter((i) => i.category === cat), 'exact')])) },
    },
    // Per conversation, for cross-validation (tune on some, report on the others).
    by_conversation: Object.fromEntries([...new Set(core.map((i) => i.conversation))].map((id) => [id, metrics(core.filter((i) => i.conversation === id), 'engram')])),
    // The same per category (bench/cross-validate.ts --category).
    by_conversation_category: Object.fromEntries(
      CATEGORIES.map((cat) => [cat, Object.fromEntries([...new Set(core.map((i) => i.conversation))].map((id) => [id, metrics(items.filter((i) => i.conversation === id && i.category === cat), 'engram')]))]),
    ),
    // With --associations: the same questions in the tenant whose search does not expand.
    ...(plainAuth
      ? { without_associations: { overall: metrics(core, 'plain'), by_category: Object.fromEntries(CATEGORIES.map((cat) => [cat, metrics(items.filter((i) => i.category === cat), 'plain')])) } }
      : {}),
    skipped: { evidence_strings: skippedEvidence, qa_without_evidence: withoutEvidence },
  };

  const f = (x: number | null, d = 3) => (x === null ? '   -' : x.toFixed(d));
  const row = (label: string, m: Metrics) =>
    `${label.padEnd(24)}${String(m.n).padStart(5)}  ${f(m.recall_at_1)}  ${f(m.recall_at_5)}  ${f(m.recall_at_10)}  ${f(m.mrr)}  ${f(m.tokens_at_5, 0).padStart(5)}  ${f(m.tokens_at_10, 0).padStart(6)}  ${f(m.p50_ms, 1).padStart(6)}  ${f(m.p95_ms, 1).padStart(6)}`;
  const lines = [
    `system / category            n    R@1    R@5   R@10    MRR  tok@5  tok@10   p50ms   p95ms`,
    ...CATEGORIES.map((cat) => row(`engram ${cat} ${NAMES[cat]}`, report.by_category[cat] as Metrics)),
    row('engram overall (1-4)', report.overall),
    ...(report.without_associations
      ? [...CATEGORIES.map((cat) => row(`no assoc. ${cat} ${NAMES[cat]}`, report.without_associations?.by_category[cat] as Metrics)), row('no assoc. overall (1-4)', report.without_associations.overall)]
      : []),
    row('bm25 overall (1-4)', report.baselines.bm25.overall),
    row('exact vector (1-4)', report.baselines.exact.overall),
    ...Object.entries(report.by_conversation).map(([id, m]) => row(`engram ${id} (1-4)`, m)),
    '',
    `evidence strings skipped: ${skippedEvidence}; QA items without usable evidence: ${withoutEvidence}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (args.json) await writeFile(args.json, JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

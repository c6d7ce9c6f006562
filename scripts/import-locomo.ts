/**
 * Imports one LoCoMo conversation into a running Engram through the REST API, then asks every
 * QA question through `/v1/memory/search` and prints evidence hit@k: the share of QA items with
 * at least one evidence turn among the top k results.
 *
 *   npm run import:locomo -- --file ../shared/bench-data/locomo-dev.json --conversation 0 \
 *     --url http://localhost:3000 [--k 5] [--mode any|all] [--json results.json]
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0. Read it where it lies; never copy it
 * into this repository. Parsing is lenient (see bench-data/SOURCE.md) and counts what it skips.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseConversation, parseEvidence, type LocomoConversation } from './locomo';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    conversation: { type: 'string', default: '0' },
    url: { type: 'string', default: 'http://localhost:3000' },
    email: { type: 'string', default: 'locomo-demo@engram.local' },
    password: { type: 'string', default: 'locomo-demo-password' },
    k: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'any' },
    json: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
  },
});

function fail(message: string): never {
  process.stderr.write(`import-locomo: ${message}\n`);
  process.exit(1);
}

async function api<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, args.url), {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text answers stay text
  }
  return { status: res.status, body: parsed as T };
}

async function signIn(): Promise<string> {
  const reg = await api<{ token?: string }>('POST', '/v1/auth/register', {}, {
    email: args.email,
    password: args.password,
    tenant_name: 'LoCoMo demo',
  });
  if (reg.status === 201 && reg.body.token) return reg.body.token;
  if (reg.status !== 409) fail(`register answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const login = await api<{ token?: string }>('POST', '/v1/auth/login', {}, { email: args.email, password: args.password });
  if (login.status !== 200 || !login.body.token) fail(`login answered ${login.status}: ${JSON.stringify(login.body)}`);
  return login.body.token;
}

async function findOrCreateMind(auth: Record<string, string>, name: string): Promise<string> {
  const found = await api<{ items: { id: string }[] }>('GET', `/v1/minds?name=${encodeURIComponent(name)}`, auth);
  if (found.status !== 200) fail(`listing minds answered ${found.status}`);
  if (found.body.items[0]) return found.body.items[0].id;
  const created = await api<{ id: string }>('POST', '/v1/minds', auth, { name, description: 'LoCoMo conversation import' });
  if (created.status !== 201) fail(`creating the mind answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i] as T);
      }
    }),
  );
  return out;
}

async function main(): Promise<void> {
  if (!args.file) fail('--file is required (e.g. ../shared/bench-data/locomo-dev.json)');
  const k = Number(args.k);
  if (!Number.isInteger(k) || k < 1 || k > 100) fail('--k must be a whole number from 1 to 100');
  if (args.mode !== 'any' && args.mode !== 'all') fail('--mode must be any or all');
  const data: unknown = JSON.parse(await readFile(args.file, 'utf8'));
  if (!Array.isArray(data)) fail('the file is not a JSON array of conversations');
  const index = Number(args.conversation);
  const raw = data[index];
  if (!Number.isInteger(index) || raw === undefined) fail(`--conversation must be 0..${data.length - 1}`);
  const conversation: LocomoConversation = parseConversation(raw);

  const token = await signIn();
  const auth = { Authorization: `Bearer ${token}` };
  const mindId = await findOrCreateMind(auth, `locomo ${conversation.sampleId}`);
  const headers = { ...auth, 'X-Mind-Id': mindId };

  const items = conversation.turns.map((turn, position) => ({
    category: 'note',
    key: turn.key,
    content: turn.content,
    tags: [turn.speaker.toLowerCase(), `session_${turn.session}`],
    memory_type: 'episodic',
    source_refs: [turn.diaId],
    temporal_context: turn.sessionDateText ?? undefined,
    occurred_at: turn.sessionDate ? new Date(turn.sessionDate.getTime() + position * 1000).toISOString() : undefined,
  }));

  const started = Date.now();
  const totals = { created: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < items.length; i += 500) {
    const res = await api<typeof totals & { message?: string }>('POST', '/v1/memory/batch', headers, { items: items.slice(i, i + 500) });
    if (res.status !== 200) fail(`batch ${i / 500} answered ${res.status}: ${JSON.stringify(res.body)}`);
    totals.created += res.body.created;
    totals.updated += res.body.updated;
    totals.unchanged += res.body.unchanged;
  }
  const importMs = Date.now() - started;
  const stored = totals.created + totals.updated + totals.unchanged;
  process.stdout.write(
    `conversation ${conversation.sampleId}: ${conversation.turns.length} turns in ${conversation.sessions} sessions; ` +
      `stored ${stored} (created ${totals.created}, updated ${totals.updated}, unchanged ${totals.unchanged}) in ${importMs} ms\n` +
      `skipped while parsing: ${conversation.skipped.turns} turns, ${conversation.skipped.dates} session dates\n`,
  );

  const known = new Set(conversation.turns.map((t) => t.diaId));
  const qa = conversation.qa.map((item) => ({ ...item, evidence: parseEvidence(item.evidence, known) }));
  const scored = qa.filter((item) => item.evidence.ids.length > 0);
  const searchStarted = Date.now();
  const latencies: number[] = [];
  const hits = await pool(scored, Number(args.concurrency), async (item) => {
    const t0 = performance.now();
    const res = await api<{ items: { source_refs: string[] }[] }>(
      'GET',
      `/v1/memory/search?limit=${k}&mode=${args.mode}&q=${encodeURIComponent(item.question.slice(0, 1000))}`,
      headers,
    );
    latencies.push(performance.now() - t0);
    if (res.status !== 200) fail(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.items.some((m) => m.source_refs.some((ref) => item.evidence.ids.includes(ref)));
  });
  const searchMs = Date.now() - searchStarted;

  const byCategory = new Map<number, { n: number; hit: number }>();
  scored.forEach((item, i) => {
    const c = byCategory.get(item.category) ?? { n: 0, hit: 0 };
    c.n += 1;
    if (hits[i]) c.hit += 1;
    byCategory.set(item.category, c);
  });
  const hitCount = hits.filter(Boolean).length;
  const names: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;

  const skippedEvidence = qa.reduce((s, item) => s + item.evidence.skipped.length, 0);
  const noEvidence = qa.length - scored.length;
  const lines = [
    `QA items: ${qa.length}; scored ${scored.length}; without usable evidence ${noEvidence}; evidence strings skipped ${skippedEvidence}`,
    `evidence hit@${k} (search mode=${args.mode}): ${(hitCount / Math.max(1, scored.length)).toFixed(3)} (${hitCount}/${scored.length})`,
    '',
    'category        n   hit@k',
    ...[...byCategory.entries()]
      .sort(([a], [b]) => a - b)
      .map(([c, v]) => `${String(c).padEnd(2)}${(names[c] ?? '?').padEnd(13)}${String(v.n).padStart(4)}   ${(v.hit / v.n).toFixed(3)}`),
    '',
    `search latency over HTTP (ms): p50 ${pct(50).toFixed(1)}, p95 ${pct(95).toFixed(1)}, max ${pct(100).toFixed(1)}; ${scored.length} searches in ${searchMs} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  if (args.json) {
    await writeFile(
      args.json,
      JSON.stringify(
        {
          conversation: conversation.sampleId,
          turns: conversation.turns.length,
          stored,
          k,
          mode: args.mode,
          hit_at_k: hitCount / Math.max(1, scored.length),
          scored: scored.length,
          skipped: { turns: conversation.skipped.turns, dates: conversation.skipped.dates, evidence: skippedEvidence, qa_without_evidence: noEvidence },
          by_category: Object.fromEntries([...byCategory.entries()].map(([c, v]) => [c, { n: v.n, hit_at_k: v.hit / v.n }])),
          latency_ms: { p50: pct(50), p95: pct(95), max: pct(100) },
        },
        null,
        2,
      ),
    );
  }
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

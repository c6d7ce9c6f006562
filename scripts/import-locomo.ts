/**
 * Imports one LoCoMo conversation into a running Engram through the REST API, then asks every
 * QA question through `/v1/memory/search` and prints evidence hit@k: the share of QA items with
 * at least one evidence turn among the top k results.
 *
 *   npm run import:locomo -- --file ../shared/bench-data/locomo-dev.json --conversation 0 \
 *     --url http://localhost:3000 [--via keyed|conversation] [--k 5] [--mode any|all] [--json out.json]
 *
 * `--via keyed` (default) stores every turn as a keyed memory. `--via conversation` also sends
 * the turns through the conversation stream (attention, STM, consolidation; session dates as
 * event time) into a second mind, recreated on every run, and reports how many turns became
 * long-term memories and the hit@k of that mind next to the keyed one.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0. Read it where it lies; never copy it
 * into this repository. Parsing is lenient (see bench-data/SOURCE.md) and counts what it skips.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseConversation, parseEvidence, turnMemory, type LocomoConversation } from './locomo';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    conversation: { type: 'string', default: '0' },
    url: { type: 'string', default: 'http://localhost:3000' },
    email: { type: 'string', default: 'locomo-demo@engram.local' },
    password: { type: 'string', default: 'locomo-demo-password' },
    via: { type: 'string', default: 'keyed' },
    k: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'any' },
    json: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
  },
});

type Headers = Record<string, string>;
const NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

function fail(message: string): never {
  process.stderr.write(`import-locomo: ${message}\n`);
  process.exit(1);
}

async function api<T>(method: string, path: string, headers: Headers, body?: unknown): Promise<{ status: number; body: T }> {
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
  const reg = await api<{ token?: string }>('POST', '/v1/auth/register', {}, { email: args.email, password: args.password, tenant_name: 'LoCoMo demo' });
  if (reg.status === 201 && reg.body.token) return reg.body.token;
  if (reg.status !== 409) fail(`register answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const login = await api<{ token?: string }>('POST', '/v1/auth/login', {}, { email: args.email, password: args.password });
  if (login.status !== 200 || !login.body.token) fail(`login answered ${login.status}: ${JSON.stringify(login.body)}`);
  return login.body.token;
}

async function findOrCreateMind(auth: Headers, name: string, fresh = false): Promise<Headers> {
  const found = await api<{ items: { id: string }[] }>('GET', `/v1/minds?name=${encodeURIComponent(name)}`, auth);
  if (found.status !== 200) fail(`listing minds answered ${found.status}`);
  let id = found.body.items[0]?.id;
  if (id && fresh) {
    // A stream is not idempotent (a second pass rehearses and reinforces): start from nothing.
    const deleted = await api('DELETE', `/v1/minds/${id}`, auth);
    if (deleted.status !== 204) fail(`deleting the previous mind answered ${deleted.status}`);
    id = undefined;
  }
  if (!id) {
    const created = await api<{ id: string }>('POST', '/v1/minds', auth, { name, description: 'LoCoMo conversation import' });
    if (created.status !== 201) fail(`creating the mind answered ${created.status}: ${JSON.stringify(created.body)}`);
    id = created.body.id;
  }
  return { ...auth, 'X-Mind-Id': id };
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

const eventTime = (conversation: LocomoConversation, position: number) => {
  const turn = conversation.turns[position];
  return turn?.sessionDate ? new Date(turn.sessionDate.getTime() + position * 1000).toISOString() : undefined;
};

/** Every turn as a keyed memory (key from the dia_id, dia_id in source_refs). */
async function importKeyed(conversation: LocomoConversation, headers: Headers) {
  const items = conversation.turns.map((_turn, position) => turnMemory(conversation, position));
  const started = Date.now();
  const totals = { created: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < items.length; i += 500) {
    const res = await api<typeof totals>('POST', '/v1/memory/batch', headers, { items: items.slice(i, i + 500) });
    if (res.status !== 200) fail(`batch ${i / 500} answered ${res.status}: ${JSON.stringify(res.body)}`);
    totals.created += res.body.created;
    totals.updated += res.body.updated;
    totals.unchanged += res.body.unchanged;
  }
  return { ...totals, stored: totals.created + totals.updated + totals.unchanged, ms: Date.now() - started };
}

interface StreamTotals {
  attended: number;
  rehearsed: number;
  below_attention: number;
  discarded: number;
  consolidated: { memory_id: string; status: string; trigger: string; messages: number }[];
  stm_size: number;
}

/** Every turn through the conversation stream, one session per request, on session time. */
async function importViaConversation(conversation: LocomoConversation, headers: Headers) {
  const conversationId = `locomo-${conversation.sampleId}`;
  const messageToDia = new Map<string, string>();
  const totals = { attended: 0, rehearsed: 0, below_attention: 0, discarded: 0, consolidated: 0, turns_in_ltm: 0, reinforced: 0, in_stm: 0, triggers: {} as Record<string, number> };
  const count = (done: Pick<StreamTotals, 'discarded' | 'consolidated'>) => {
    totals.discarded += done.discarded;
    for (const c of done.consolidated) {
      if (c.status === 'created') totals.consolidated += 1;
      else totals.reinforced += 1;
      totals.turns_in_ltm += c.messages;
      totals.triggers[c.trigger] = (totals.triggers[c.trigger] ?? 0) + 1;
    }
  };
  const started = Date.now();
  const sessions = [...new Set(conversation.turns.map((t) => t.session))];
  for (const session of sessions) {
    const turns = conversation.turns.map((t, position) => ({ t, position })).filter((x) => x.t.session === session);
    const res = await api<StreamTotals & { message_ids: string[] }>('POST', `/v1/conversations/${conversationId}/messages`, headers, {
      messages: turns.map(({ t, position }) => ({ role: 'user', speaker: t.speaker, content: t.utterance, occurred_at: eventTime(conversation, position), metadata: { dia_id: t.diaId } })),
    });
    if (res.status !== 201) fail(`session ${session} answered ${res.status}: ${JSON.stringify(res.body)}`);
    res.body.message_ids.forEach((id, i) => messageToDia.set(id, turns[i]?.t.diaId ?? ''));
    totals.attended += res.body.attended;
    totals.rehearsed += res.body.rehearsed;
    totals.below_attention += res.body.below_attention;
    count(res.body);
    totals.in_stm = res.body.stm_size;
  }
  // The conversation is over: what is left in STM is decided now, as after 30 quiet minutes.
  const end = await api<Pick<StreamTotals, 'discarded' | 'consolidated'>>('POST', `/v1/conversations/${conversationId}/end`, headers, {});
  if (end.status !== 200) fail(`ending the conversation answered ${end.status}: ${JSON.stringify(end.body)}`);
  count(end.body);
  totals.in_stm = 0;
  return { ...totals, conversationId, messageToDia, ms: Date.now() - started };
}

/** Asks every scored question; a hit when a top-k memory refers to an evidence turn. */
async function evaluate(conversation: LocomoConversation, headers: Headers, toDia: (ref: string) => string | undefined) {
  const k = Number(args.k);
  const known = new Set(conversation.turns.map((t) => t.diaId));
  const qa = conversation.qa.map((item) => ({ ...item, evidence: parseEvidence(item.evidence, known) }));
  const scored = qa.filter((item) => item.evidence.ids.length > 0);
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
    return res.body.items.some((m) => m.source_refs.some((ref) => item.evidence.ids.includes(toDia(ref) ?? '')));
  });
  const byCategory = new Map<number, { n: number; hit: number }>();
  scored.forEach((item, i) => {
    const c = byCategory.get(item.category) ?? { n: 0, hit: 0 };
    c.n += 1;
    if (hits[i]) c.hit += 1;
    byCategory.set(item.category, c);
  });
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const hitCount = hits.filter(Boolean).length;
  return {
    qa: qa.length,
    scored: scored.length,
    skippedEvidence: qa.reduce((s, item) => s + item.evidence.skipped.length, 0),
    hits: hitCount,
    hitAtK: hitCount / Math.max(1, scored.length),
    byCategory: Object.fromEntries([...byCategory.entries()].sort(([a], [b]) => a - b).map(([c, v]) => [c, { n: v.n, hit_at_k: v.hit / v.n }])),
    latency: { p50: pct(50), p95: pct(95), max: pct(100) },
  };
}

type Evaluation = Awaited<ReturnType<typeof evaluate>>;

function table(columns: [string, Evaluation][]): string {
  const k = Number(args.k);
  const head = `category      ${columns.map(([name]) => `${name.padStart(14)}`).join('')}`;
  const cats = Object.keys(columns[0]?.[1].byCategory ?? {}).map(Number);
  const rows = cats.map((c) => {
    const first = columns[0]?.[1].byCategory[c];
    return `${String(c).padEnd(2)}${(NAMES[c] ?? '?').padEnd(12)}${columns.map(([, e]) => (e.byCategory[c]?.hit_at_k ?? 0).toFixed(3).padStart(14)).join('')}   (n=${first?.n ?? 0})`;
  });
  const overall = `all           ${columns.map(([, e]) => `${e.hitAtK.toFixed(3)} (${e.hits})`.padStart(14)).join('')}`;
  return [`evidence hit@${k}, search mode=${args.mode}`, head, ...rows, overall].join('\n');
}

async function main(): Promise<void> {
  if (!args.file) fail('--file is required (e.g. ../shared/bench-data/locomo-dev.json)');
  const k = Number(args.k);
  if (!Number.isInteger(k) || k < 1 || k > 100) fail('--k must be a whole number from 1 to 100');
  if (args.mode !== 'any' && args.mode !== 'all') fail('--mode must be any or all');
  if (args.via !== 'keyed' && args.via !== 'conversation') fail('--via must be keyed or conversation');
  const data: unknown = JSON.parse(await readFile(args.file, 'utf8'));
  if (!Array.isArray(data)) fail('the file is not a JSON array of conversations');
  const index = Number(args.conversation);
  const raw = data[index];
  if (!Number.isInteger(index) || raw === undefined) fail(`--conversation must be 0..${data.length - 1}`);
  const conversation = parseConversation(raw);
  const auth = { Authorization: `Bearer ${await signIn()}` };

  const keyedHeaders = await findOrCreateMind(auth, `locomo ${conversation.sampleId}`);
  const keyed = await importKeyed(conversation, keyedHeaders);
  process.stdout.write(
    `conversation ${conversation.sampleId}: ${conversation.turns.length} turns in ${conversation.sessions} sessions; ` +
      `keyed import stored ${keyed.stored} (created ${keyed.created}, updated ${keyed.updated}, unchanged ${keyed.unchanged}) in ${keyed.ms} ms\n` +
      `skipped while parsing: ${conversation.skipped.turns} turns, ${conversation.skipped.dates} session dates\n`,
  );
  const keyedEval = await evaluate(conversation, keyedHeaders, (ref) => ref);
  const columns: [string, Evaluation][] = [['keyed', keyedEval]];
  const report: Record<string, unknown> = { conversation: conversation.sampleId, turns: conversation.turns.length, k, mode: args.mode, keyed: { ...keyed, ...keyedEval } };

  if (args.via === 'conversation') {
    const streamHeaders = await findOrCreateMind(auth, `locomo ${conversation.sampleId} (conversation)`, true);
    const stream = await importViaConversation(conversation, streamHeaders);
    process.stdout.write(
      `conversation stream: ${conversation.turns.length} turns → ${stream.attended} entered STM, ${stream.rehearsed} rehearsed an entry, ` +
        `${stream.below_attention} below attention; ${stream.turns_in_ltm} turns became ${stream.consolidated} long-term memories (${Object.entries(stream.triggers).map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}), ` +
        `${stream.reinforced} reinforced one, ${stream.discarded} discarded, ${stream.in_stm} still in STM; ${stream.ms} ms\n`,
    );
    const streamEval = await evaluate(conversation, streamHeaders, (ref) => stream.messageToDia.get(ref));
    columns.push(['conversation', streamEval]);
    const { messageToDia: _map, ...streamReport } = stream;
    report.conversation_stream = { ...streamReport, ...streamEval };
  }

  process.stdout.write(
    [
      `QA items: ${keyedEval.qa}; scored ${keyedEval.scored}; without usable evidence ${keyedEval.qa - keyedEval.scored}; evidence strings skipped ${keyedEval.skippedEvidence}`,
      '',
      table(columns),
      '',
      ...columns.map(([name, e]) => `search latency over HTTP, ${name} (ms): p50 ${e.latency.p50.toFixed(1)}, p95 ${e.latency.p95.toFixed(1)}, max ${e.latency.max.toFixed(1)}`),
    ].join('\n') + '\n',
  );
  if (args.json) await writeFile(args.json, JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

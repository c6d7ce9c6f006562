/**
 * LoCoMo through the conversation stream, side by side with the keyed import of the same turns,
 * against a running Engram (docs/benchmarks.md "bench:conversation"):
 *
 *   RATE_LIMIT_PER_MINUTE=0 FORGETTING_INTERVAL_MS=0 TIERING_INTERVAL_MS=0 SLEEP_CYCLE_INTERVAL_MS=0 \
 *     SYSTEMS_CONSOLIDATION_INTERVAL_MS=0 npm start &   # docs/benchmarks.md says why
 *   npm run bench:conversation -- --file ../shared/bench-data/locomo-dev.json [--url http://localhost:3000] [--json out.json]
 *
 * For each conversation, two fresh minds: one gets every turn as a keyed memory (what
 * `bench:locomo` stores), the other gets the turns through `POST /v1/conversations/:id/messages`,
 * one request per session, each turn on its session's date (1 s apart), without importance: the
 * default scorer decides. Then, per conversation and overall:
 *
 * - cited kept: the share of the turns that the conversation's `observation` entries cite (the
 *   turns that carry facts) whose message reached a long-term memory (a memory's `source_refs`);
 * - stored: the share of all turns that did;
 * - memories made, tokens stored (o200k_base, the memories' content), what is left in STM;
 * - evidence recall@5/10 of search (top 10) over each mind, for QA categories 1-4;
 * - the share of QA evidence turns that reached long-term memory (the ceiling of the stream's recall).
 *
 * After its last session each conversation is ended (`POST /v1/conversations/:id/end`), as a
 * client does when a chat closes: what is left in STM is decided as after 30 quiet minutes. With
 * `--keep-open` it is not: those turns (at most `stm.capacity` per conversation) count as not
 * stored, though the sleep cycle decides them later.
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0; read where it lies, never copied here.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer';
import { parseConversation, parseEvidence, turnMemory, type LocomoConversation } from '../scripts/locomo';
import { citedTurns } from './conversation-sim';
import { failure } from './support';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string' },
    url: { type: 'string', default: 'http://localhost:3000' },
    json: { type: 'string' },
    email: { type: 'string', default: 'conversation-bench@engram.local' },
    password: { type: 'string', default: 'conversation-bench-password' },
    // Lifecycle overrides for the bench's tenant (PATCH /v1/tenant/settings/lifecycle), as JSON:
    // to compare settings on one server, each run with its own --email (as bench:locomo).
    settings: { type: 'string' },
    // Leave each conversation open after its last session (no POST .../end): what is still in
    // STM then waits for the sleep cycle, and counts as not stored (the figures before 2026-12-03's end route).
    'keep-open': { type: 'boolean', default: false },
  },
});
const fail: (message: string) => never = failure('bench:conversation');
type Headers = Record<string, string>;

/**
 * One request; a 429 is waited out as its Retry-After says (start the service with
 * RATE_LIMIT_PER_MINUTE=0 to skip the waits). A GET whose connection failed is sent once more: a
 * kept-alive connection the server closed as the next request went out ("fetch failed", seen
 * once in ~4,000 searches) says nothing about the search.
 */
async function api<T>(method: string, path: string, headers: Headers, body?: unknown): Promise<{ status: number; body: T }> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(new URL(path, args.url), {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      if (method === 'GET' && attempt === 1) {
        process.stderr.write(`${method} ${path} failed${cause}; sending it again\n`);
        continue;
      }
      throw new Error(`${method} ${path} failed${cause}`);
    }
    const text = await res.text();
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after') ?? 1);
      process.stderr.write(`rate limited: waiting ${seconds} s\n`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
      continue;
    }
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
}

async function signIn(): Promise<Headers> {
  const reg = await api<{ token?: string }>('POST', '/v1/auth/register', {}, { email: args.email, password: args.password, tenant_name: 'Conversation bench' });
  let token = reg.body?.token;
  if (reg.status === 409) token = (await api<{ token?: string }>('POST', '/v1/auth/login', {}, { email: args.email, password: args.password })).body?.token;
  if (!token) fail(`could not sign in (register answered ${reg.status})`);
  const auth = { Authorization: `Bearer ${token}` };
  if (args.settings) {
    const res = await api('PATCH', '/v1/tenant/settings/lifecycle', auth, JSON.parse(args.settings));
    if (res.status !== 200) fail(`the settings answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return auth;
}

async function freshMind(auth: Headers, name: string): Promise<Headers> {
  const mind = await api<{ id: string }>('POST', '/v1/minds', auth, { name: `${name} ${Date.now()}` });
  if (mind.status !== 201) fail(`creating a mind answered ${mind.status}`);
  return { ...auth, 'X-Mind-Id': mind.body.id };
}

interface Memory {
  content: string;
  source_refs: string[];
}

async function allMemories(headers: Headers): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { items: Memory[]; next_cursor: string | null } } = await api('GET', `/v1/memory?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers);
    if (page.status !== 200) fail(`listing memories answered ${page.status}`);
    out.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

interface Side {
  memories: number;
  tokens: number;
  recall5: number[];
  recall10: number[];
}

interface ConversationResult {
  sample_id: string;
  /** QA evidence turns (categories 1-4) and how many of them reached long-term memory: the ceiling of the stream's recall. */
  evidence: number;
  evidence_kept: number;
  turns: number;
  cited: number;
  cited_kept: number;
  stored: number;
  left_in_stm: number;
  ms: number;
  triggers: Record<string, number>;
  stream: Side;
  keyed: Side;
}

/** Evidence recall@k of one ranking: the share of evidence turns among the top k results' turns. */
const recallAt = (ranked: string[][], evidence: string[], k: number) => {
  const found = new Set(ranked.slice(0, k).flat());
  return evidence.filter((e) => found.has(e)).length / evidence.length;
};

async function searchRecall(c: LocomoConversation, headers: Headers, toDia: (ref: string) => string | undefined): Promise<Pick<Side, 'recall5' | 'recall10'>> {
  const known = new Set(c.turns.map((t) => t.diaId));
  const out = { recall5: [] as number[], recall10: [] as number[] };
  for (const qa of c.qa) {
    if (qa.category < 1 || qa.category > 4) continue;
    const evidence = parseEvidence(qa.evidence, known).ids;
    if (evidence.length === 0) continue;
    const res = await api<{ items: Memory[] }>('GET', `/v1/memory/search?limit=10&q=${encodeURIComponent(qa.question.slice(0, 1000))}`, headers);
    if (res.status !== 200) fail(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
    const ranked = res.body.items.map((m) => m.source_refs.map(toDia).filter((d): d is string => d !== undefined));
    out.recall5.push(recallAt(ranked, evidence, 5));
    out.recall10.push(recallAt(ranked, evidence, 10));
  }
  return out;
}

async function runConversation(auth: Headers, raw: unknown): Promise<ConversationResult> {
  const c = parseConversation(raw);
  const cited = citedTurns(raw);
  // The keyed import, as bench:locomo stores it.
  const keyedHeaders = await freshMind(auth, `keyed ${c.sampleId}`);
  const items = c.turns.map((_t, i) => turnMemory(c, i));
  for (let i = 0; i < items.length; i += 500) {
    const res = await api('POST', '/v1/memory/batch', keyedHeaders, { items: items.slice(i, i + 500) });
    if (res.status !== 200) fail(`batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  // The stream: one request per session, on session time, as import:locomo --via conversation sends it.
  const streamHeaders = await freshMind(auth, `stream ${c.sampleId}`);
  const toDia = new Map<string, string>();
  const triggers: Record<string, number> = {};
  let leftInStm = 0;
  const started = performance.now();
  for (const session of [...new Set(c.turns.map((t) => t.session))]) {
    const turns = c.turns.map((t, position) => ({ t, position })).filter((x) => x.t.session === session);
    const res = await api<{ message_ids: string[]; consolidated: { trigger: string; status: string }[]; stm_size: number }>('POST', `/v1/conversations/locomo-${c.sampleId}/messages`, streamHeaders, {
      messages: turns.map(({ t, position }) => ({
        role: 'user',
        speaker: t.speaker,
        content: t.utterance,
        occurred_at: t.sessionDate ? new Date(t.sessionDate.getTime() + position * 1000).toISOString() : undefined,
      })),
    });
    if (res.status !== 201) fail(`session ${session} answered ${res.status}: ${JSON.stringify(res.body)}`);
    res.body.message_ids.forEach((id, i) => toDia.set(id, turns[i]?.t.diaId ?? ''));
    for (const x of res.body.consolidated) triggers[x.status === 'created' ? x.trigger : 'reinforced'] = (triggers[x.status === 'created' ? x.trigger : 'reinforced'] ?? 0) + 1;
    leftInStm = res.body.stm_size;
  }
  if (!args['keep-open']) {
    // The conversation is over: what is left in STM is decided as after 30 quiet minutes.
    const end = await api<{ consolidated: { trigger: string; status: string }[] }>('POST', `/v1/conversations/locomo-${c.sampleId}/end`, streamHeaders, {});
    if (end.status !== 200) fail(`ending the conversation answered ${end.status}: ${JSON.stringify(end.body)}`);
    for (const x of end.body.consolidated) triggers[x.status === 'created' ? x.trigger : 'reinforced'] = (triggers[x.status === 'created' ? x.trigger : 'reinforced'] ?? 0) + 1;
    leftInStm = 0;
  }
  const ms = performance.now() - started;
  const streamMemories = await allMemories(streamHeaders);
  const keyedMemories = await allMemories(keyedHeaders);
  const kept = new Set(streamMemories.flatMap((m) => m.source_refs.map((r) => toDia.get(r)).filter((d): d is string => d !== undefined)));
  const tokens = (ms: Memory[]) => ms.reduce((s, m) => s + countTokens(m.content), 0);
  const known = new Set(c.turns.map((t) => t.diaId));
  const evidence = new Set(c.qa.filter((q) => q.category >= 1 && q.category <= 4).flatMap((q) => parseEvidence(q.evidence, known).ids));
  return {
    sample_id: c.sampleId,
    evidence: evidence.size,
    evidence_kept: [...evidence].filter((d) => kept.has(d)).length,
    turns: c.turns.length,
    cited: c.turns.filter((t) => cited.has(t.diaId)).length,
    cited_kept: c.turns.filter((t) => cited.has(t.diaId) && kept.has(t.diaId)).length,
    stored: c.turns.filter((t) => kept.has(t.diaId)).length,
    left_in_stm: leftInStm,
    ms,
    triggers,
    stream: { memories: streamMemories.length, tokens: tokens(streamMemories), ...(await searchRecall(c, streamHeaders, (r) => toDia.get(r))) },
    keyed: { memories: keyedMemories.length, tokens: tokens(keyedMemories), ...(await searchRecall(c, keyedHeaders, (r) => r)) },
  };
}

async function main(): Promise<void> {
  const file = args.file ?? fail('--file is required (e.g. ../shared/bench-data/locomo-dev.json)');
  const data: unknown = JSON.parse(await readFile(file, 'utf8'));
  if (!Array.isArray(data)) fail('the file is not a JSON array of conversations');
  const auth = await signIn();
  const results: ConversationResult[] = [];
  for (const raw of data) {
    const r = await runConversation(auth, raw);
    results.push(r);
    process.stderr.write(`${r.sample_id}: ${r.turns} turns through the stream in ${(r.ms / 1000).toFixed(1)} s\n`);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const sum = (f: (r: ConversationResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const all = (f: (r: ConversationResult) => number[]) => results.flatMap(f);
  const row = (label: string, r: { turns: number; cited: number; cited_kept: number; stored: number; memories: number; tokens: number; keyedTokens: number; s5: number; s10: number; k5: number; k10: number; stm: number }) =>
    `${label.padEnd(10)}${String(r.turns).padStart(6)}  ${(r.cited_kept / r.cited).toFixed(3)}  ${(r.stored / r.turns).toFixed(3)}  ${String(r.memories).padStart(5)}  ${String(r.tokens).padStart(7)}  ${String(r.keyedTokens).padStart(7)}  ${String(r.stm).padStart(3)}  ${r.s5.toFixed(3)}  ${r.k5.toFixed(3)}  ${r.s10.toFixed(3)}  ${r.k10.toFixed(3)}`;
  const shape = (r: ConversationResult) => ({
    turns: r.turns,
    cited: r.cited,
    cited_kept: r.cited_kept,
    stored: r.stored,
    memories: r.stream.memories,
    tokens: r.stream.tokens,
    keyedTokens: r.keyed.tokens,
    stm: r.left_in_stm,
    s5: mean(r.stream.recall5),
    s10: mean(r.stream.recall10),
    k5: mean(r.keyed.recall5),
    k10: mean(r.keyed.recall10),
  });
  const overall = {
    turns: sum((r) => r.turns),
    cited: sum((r) => r.cited),
    cited_kept: sum((r) => r.cited_kept),
    stored: sum((r) => r.stored),
    memories: sum((r) => r.stream.memories),
    tokens: sum((r) => r.stream.tokens),
    keyedTokens: sum((r) => r.keyed.tokens),
    stm: sum((r) => r.left_in_stm),
    s5: mean(all((r) => r.stream.recall5)),
    s10: mean(all((r) => r.stream.recall10)),
    k5: mean(all((r) => r.keyed.recall5)),
    k10: mean(all((r) => r.keyed.recall10)),
  };
  const lines = [
    'conv       turns  cited   stored  mems  tokens  keyed-t  stm  R@5 st  R@5 ky  R@10 st R@10 ky',
    ...results.map((r) => row(r.sample_id, shape(r))),
    row('overall', overall),
    '',
    `cited kept: share of observation-cited turns whose message reached long-term memory; stored: share of all turns that did.`,
    `R@k: evidence recall@k of search (QA categories 1-4, ${all((r) => r.stream.recall10).length} questions) over the stream's mind (st) and the keyed import's (ky).`,
    `evidence turns (QA 1-4) that reached long-term memory: ${sum((r) => r.evidence_kept)} of ${sum((r) => r.evidence)} (${(sum((r) => r.evidence_kept) / sum((r) => r.evidence)).toFixed(3)}): the ceiling of the stream's recall.`,
    `triggers: ${JSON.stringify(results.reduce<Record<string, number>>((acc, r) => { for (const [k, v] of Object.entries(r.triggers)) acc[k] = (acc[k] ?? 0) + v; return acc; }, {}))}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (args.json) {
    const conversations = results.map((r) => ({ ...shape(r), sample_id: r.sample_id, evidence: r.evidence, evidence_kept: r.evidence_kept, triggers: r.triggers, ms: r.ms, recall10: { stream: r.stream.recall10, keyed: r.keyed.recall10 } }));
    await writeFile(args.json, JSON.stringify({ overall, conversations }, null, 2));
  }
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

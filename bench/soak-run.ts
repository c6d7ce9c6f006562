/**
 * The soak's traffic and measurements (issue 8 §7), shared by `bench/soak.ts` (the CLI) and
 * `test/soak.test.ts` (its short form in CI). Mixed traffic over HTTP against one API, from
 * `concurrency` closed-loop clients, each request's answer checked against the statuses it may
 * have; the API process's memory and CPU read from its own `/metrics` (prom-client's defaults),
 * so any running API can be soaked, local or not.
 */
import { percentile, prng } from './support';

export interface SoakOptions {
  /** The API's base URL, `http://host:port`. */
  url: string;
  durationMs: number;
  /** Tenants registered for the run (ignored with `ownerToken`). */
  tenants: number;
  mindsPerTenant: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** How often `/metrics` is read (ms). */
  sampleEveryMs: number;
  /** An owner's JWT: the minds are created in that tenant instead of registering tenants. */
  ownerToken?: string;
  metricsToken?: string;
  seed?: number;
  /** Called with each sample as it is taken (progress). */
  onSample?: (s: Sample) => void;
}

/** The API process at one instant: memory in MiB, CPU as a share of one core since the previous sample. */
export interface Sample {
  t_s: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb: number;
  cpu_pct: number;
}

export interface KindStats {
  kind: Kind;
  requests: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface SoakResult {
  url: string;
  started_at: string;
  duration_s: number;
  concurrency: number;
  tenants: number;
  minds: number;
  requests: number;
  errors: number;
  /** The first errors, `KIND METHOD PATH → status: body` (at most 20). */
  error_samples: string[];
  kinds: KindStats[];
  memory: {
    rss_start_mb: number;
    rss_end_mb: number;
    rss_max_mb: number;
    heap_used_start_mb: number;
    heap_used_end_mb: number;
    heap_used_max_mb: number;
    /** Least-squares slope over the samples of the second half of the run (MiB per minute). */
    rss_slope_mb_per_min: number;
    heap_used_slope_mb_per_min: number;
  };
  cpu_mean_pct: number;
  samples: Sample[];
}

const KINDS = ['upsert', 'conversation', 'get', 'search', 'recall', 'list', 'delete'] as const;
export type Kind = (typeof KINDS)[number];
/** Share of each kind in the mix (sums to 1): writes and reads as an agent spends them. */
const MIX: Record<Kind, number> = { upsert: 0.25, conversation: 0.1, get: 0.2, search: 0.2, recall: 0.08, list: 0.1, delete: 0.07 };
/** Keys per mind for keyed upserts: re-storing them makes updates and unchanged answers too. */
const KEYS_PER_MIND = 400;
const WORDS = 'budget flight berlin lisbon tokyo invoice meeting sister hiking piano server migration garden recipe deadline coffee review contract puppy marathon'.split(' ');

interface Mind {
  auth: Record<string, string>;
  ids: Map<number, string>;
  deletes: number;
}

class Recorder {
  readonly ms = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  readonly errors = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  readonly samples: string[] = [];

  fail(kind: Kind, what: string): void {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    if (this.samples.length < 20) this.samples.push(`${kind} ${what}`);
  }
}

/**
 * One request, timed and checked: an answer outside `expected` (or no answer) is an error.
 * @returns the parsed JSON body (undefined for other bodies and failures)
 */
async function send(rec: Recorder, base: string, kind: Kind, expected: number[], method: string, path: string, auth: Record<string, string>, body?: unknown) {
  const t0 = performance.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    rec.ms.get(kind)?.push(performance.now() - t0);
    if (!expected.includes(res.status)) {
      rec.fail(kind, `${method} ${path} → ${res.status}: ${text.slice(0, 200)}`);
      return undefined;
    }
    return (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Record<string, any>) : undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  } catch (error) {
    rec.ms.get(kind)?.push(performance.now() - t0);
    rec.fail(kind, `${method} ${path} → ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Setup requests must succeed: a soak on a broken set-up measures nothing. */
async function must(base: string, method: string, path: string, auth: Record<string, string>, body?: unknown) {
  const rec = new Recorder();
  const out = await send(rec, base, 'upsert', [200, 201], method, path, auth, body);
  if (!out) throw new Error(`soak set-up failed: ${rec.samples[0] ?? `${method} ${path}`}`);
  return out;
}

async function createMinds(o: SoakOptions): Promise<Mind[]> {
  const owners: Record<string, string>[] = [];
  if (o.ownerToken) owners.push({ Authorization: `Bearer ${o.ownerToken}` });
  else {
    for (let t = 0; t < o.tenants; t++) {
      const reg = await must(o.url, 'POST', '/v1/auth/register', {}, { email: `soak-${Date.now()}-${t}@engram.local`, password: 'soak password 1234', tenant_name: `soak ${t}` });
      owners.push({ Authorization: `Bearer ${reg.token as string}` });
    }
  }
  const minds: Mind[] = [];
  for (const [t, owner] of owners.entries()) {
    for (let m = 0; m < o.mindsPerTenant; m++) {
      const mind = await must(o.url, 'POST', '/v1/minds', owner, { name: `soak ${t}.${m} ${Date.now()}` });
      const key = await must(o.url, 'POST', `/v1/minds/${mind.id as string}/keys`, owner, {});
      minds.push({ auth: { Authorization: `Bearer ${key.key as string}` }, ids: new Map(), deletes: 0 });
    }
  }
  return minds;
}

/** One request of `kind` for `mind`; `r` draws the variation (seeded). */
async function step(rec: Recorder, base: string, kind: Kind, mind: Mind, r: () => number): Promise<void> {
  const word = () => WORDS[Math.floor(r() * WORDS.length)] as string;
  const a = mind.auth;
  switch (kind) {
    case 'upsert': {
      const k = Math.floor(r() * KEYS_PER_MIND);
      const body = { category: 'fact', key: `soak_${k}`, content: `${word()} ${word()} note ${k} revision ${Math.floor(r() * 4)}`, tags: [word()] };
      const out = await send(rec, base, kind, [200, 201], 'POST', '/v1/memory', a, body);
      if (out?.id) mind.ids.set(k, out.id as string);
      return;
    }
    case 'conversation': {
      const messages = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({ speaker: 'Ana', content: `we talked about the ${word()} and the ${word()} near the ${word()}` }));
      await send(rec, base, kind, [201], 'POST', `/v1/conversations/soak-${Math.floor(r() * 20)}/messages`, a, { messages });
      return;
    }
    case 'get': {
      const ids = [...mind.ids.values()];
      if (ids.length === 0) return step(rec, base, 'upsert', mind, r);
      await send(rec, base, kind, [200], 'GET', `/v1/memory/${ids[Math.floor(r() * ids.length)] as string}`, a);
      return;
    }
    case 'search':
      await send(rec, base, kind, [200], 'GET', `/v1/memory/search?q=${word()}%20${word()}&limit=10`, a);
      return;
    case 'recall':
      await send(rec, base, kind, [200], 'GET', r() < 0.5 ? '/v1/memory/recall?limit=50' : `/v1/memory/recall?q=${word()}&max_tokens=800`, a);
      return;
    case 'list': {
      // Up to three pages, following the cursor.
      let path = '/v1/memory?limit=50';
      for (let page = 0; page < 3; page++) {
        const out = await send(rec, base, kind, [200], 'GET', path, a);
        if (!out?.next_cursor) return;
        path = `/v1/memory?limit=50&cursor=${encodeURIComponent(out.next_cursor as string)}`;
      }
      return;
    }
    case 'delete': {
      // Its own keys, so a delete never races a read of a memory it removes.
      mind.deletes += 1;
      const created = await send(rec, base, 'upsert', [201], 'POST', '/v1/memory', a, { category: 'note', key: `soak_tmp_${mind.deletes}`, content: `short-lived ${word()}` });
      if (created?.id) await send(rec, base, kind, [204], 'DELETE', `/v1/memory/${created.id as string}`, a);
    }
  }
}

async function sample(o: SoakOptions, t0: number, previous?: { t: number; cpu: number }): Promise<{ s: Sample; cpu: number; t: number }> {
  const res = await fetch(`${o.url}/metrics`, { headers: o.metricsToken ? { Authorization: `Bearer ${o.metricsToken}` } : {}, signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`GET /metrics → ${res.status}: the soak reads the API's memory there (--metrics-token?)`);
  const text = await res.text();
  const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  const t = performance.now();
  const cpu = value('engram_process_cpu_seconds_total');
  const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
  const cpuPct = previous ? Math.round(((cpu - previous.cpu) / ((t - previous.t) / 1000)) * 1000) / 10 : 0;
  return {
    s: {
      t_s: Math.round((t - t0) / 100) / 10,
      rss_mb: mb(value('engram_process_resident_memory_bytes')),
      heap_used_mb: mb(value('engram_nodejs_heap_size_used_bytes')),
      heap_total_mb: mb(value('engram_nodejs_heap_size_total_bytes')),
      cpu_pct: cpuPct,
    },
    cpu,
    t,
  };
}

/** Least-squares slope of `y` over `t_s`, per minute; 0 for fewer than two points. */
export function slopePerMinute(points: { t_s: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const mt = points.reduce((s, p) => s + p.t_s, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const num = points.reduce((s, p) => s + (p.t_s - mt) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.t_s - mt) ** 2, 0);
  return den === 0 ? 0 : Math.round((num / den) * 60 * 100) / 100;
}

/**
 * Runs the soak: registers tenants (or uses `ownerToken`'s), creates minds and Mind Keys, then
 * sends the mix for `durationMs` while sampling `/metrics`. The API must allow the load
 * (rate limits off or high). @throws when set-up or `/metrics` fails; request errors are counted
 */
export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const minds = await createMinds(o);
  const rec = new Recorder();
  const t0 = performance.now();
  const samples: Sample[] = [];
  let last = await sample(o, t0);
  samples.push(last.s);
  o.onSample?.(last.s);
  const end = t0 + o.durationMs;
  const sampler = setInterval(() => {
    void sample(o, t0, last).then((next) => {
      last = next;
      samples.push(next.s);
      o.onSample?.(next.s);
    });
  }, o.sampleEveryMs);
  const cumulative = KINDS.reduce<number[]>((acc, k) => [...acc, (acc.at(-1) ?? 0) + MIX[k]], []);
  const client = async (n: number) => {
    const r = prng((o.seed ?? 8) * 1000 + n);
    while (performance.now() < end) {
      const x = r();
      const kind = KINDS[cumulative.findIndex((c) => x < c)] ?? 'get';
      await step(rec, o.url, kind, minds[Math.floor(r() * minds.length)] as Mind, r);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, (_, n) => client(n)));
  clearInterval(sampler);
  last = await sample(o, t0, last);
  samples.push(last.s);

  const kinds = KINDS.map((kind) => {
    const ms = rec.ms.get(kind) ?? [];
    const round = (p: number) => Math.round(percentile(ms, p) * 10) / 10;
    return { kind, requests: ms.length, errors: rec.errors.get(kind) ?? 0, p50_ms: round(50), p95_ms: round(95), p99_ms: round(99) };
  });
  const duration = (performance.now() - t0) / 1000;
  const half = samples.filter((s) => s.t_s >= duration / 2);
  const max = (f: (s: Sample) => number) => Math.max(...samples.map(f));
  const first = samples[0] as Sample;
  const final = samples.at(-1) as Sample;
  return {
    url: o.url,
    started_at: new Date(Date.now() - duration * 1000).toISOString(),
    duration_s: Math.round(duration),
    concurrency: o.concurrency,
    tenants: o.ownerToken ? 1 : o.tenants,
    minds: minds.length,
    requests: kinds.reduce((s, k) => s + k.requests, 0),
    errors: kinds.reduce((s, k) => s + k.errors, 0),
    error_samples: rec.samples,
    kinds,
    memory: {
      rss_start_mb: first.rss_mb,
      rss_end_mb: final.rss_mb,
      rss_max_mb: max((s) => s.rss_mb),
      heap_used_start_mb: first.heap_used_mb,
      heap_used_end_mb: final.heap_used_mb,
      heap_used_max_mb: max((s) => s.heap_used_mb),
      rss_slope_mb_per_min: slopePerMinute(half.map((s) => ({ t_s: s.t_s, y: s.rss_mb }))),
      heap_used_slope_mb_per_min: slopePerMinute(half.map((s) => ({ t_s: s.t_s, y: s.heap_used_mb }))),
    },
    cpu_mean_pct: Math.round((samples.slice(1).reduce((s, x) => s + x.cpu_pct, 0) / Math.max(1, samples.length - 1)) * 10) / 10,
    samples,
  };
}

/** The result as the tables `bench/RESULTS.md` shows: requests by kind, then the API's memory and CPU. */
export function formatSoak(r: SoakResult): string {
  const rows = r.kinds.map((k) => `| ${k.kind} | ${k.requests} | ${k.errors} | ${k.p50_ms} | ${k.p95_ms} | ${k.p99_ms} |`);
  const m = r.memory;
  return [
    `${r.duration_s} s, ${r.concurrency} clients, ${r.tenants} tenants, ${r.minds} minds: ${r.requests} requests (${Math.round(r.requests / r.duration_s)}/s), ${r.errors} errors`,
    '',
    '| kind | requests | errors | p50 ms | p95 ms | p99 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '| API process | start | end | max | slope, second half |',
    '| --- | --- | --- | --- | --- |',
    `| RSS (MiB) | ${m.rss_start_mb} | ${m.rss_end_mb} | ${m.rss_max_mb} | ${m.rss_slope_mb_per_min} MiB/min |`,
    `| V8 heap used (MiB) | ${m.heap_used_start_mb} | ${m.heap_used_end_mb} | ${m.heap_used_max_mb} | ${m.heap_used_slope_mb_per_min} MiB/min |`,
    `| CPU (% of one core, mean) | | | | ${r.cpu_mean_pct} |`,
    ...(r.error_samples.length ? ['', 'first errors:', ...r.error_samples.map((e) => `  ${e}`)] : []),
  ].join('\n');
}

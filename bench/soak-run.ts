/**
 * The soak's traffic and measurements (issue 8 §7), shared by `bench/soak.ts` (the CLI) and
 * `test/soak.test.ts` (its short form in CI). Mixed traffic over HTTP against one API, from
 * `concurrency` closed-loop clients, each request's answer checked against the statuses it may
 * have; the API process's memory and CPU read from its own `/metrics` (prom-client's defaults),
 * so any running API can be soaked, local or not. The requests are in soak-traffic.ts, the
 * samples of `/metrics` in soak-metrics.ts; this file runs them and sums up.
 */
import { sample, slopePerMinute, type Sample } from './soak-metrics';
import { KINDS, MIX, Recorder, createMinds, step, type Kind, type Mind } from './soak-traffic';
import { percentile, prng } from './support';

export { slopePerMinute, type Sample } from './soak-metrics';
export type { Kind } from './soak-traffic';

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

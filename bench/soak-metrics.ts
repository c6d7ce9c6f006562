/**
 * The soak's measurements of the API process, read from its own `/metrics` (prom-client's
 * defaults), so any running API can be soaked, local or not.
 */

/** The API process at one instant: memory in MiB, CPU as a share of one core since the previous sample. */
export interface Sample {
  t_s: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb: number;
  cpu_pct: number;
}

/** Reads the API's `/metrics` now: memory, and CPU since `previous` (the first sample has 0 %). */
export async function sample(o: { url: string; metricsToken?: string }, t0: number, previous?: { t: number; cpu: number }): Promise<{ s: Sample; cpu: number; t: number }> {
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

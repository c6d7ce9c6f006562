/** bench:scale's load: autocannon phases against the API, with its CPU and memory sampled meanwhile. */
import autocannon from 'autocannon';
import pidusage from 'pidusage';
import { log, type Tenant } from './scale-api';
import { percentile, prng } from './support';

/** Where and how hard a phase loads: the API (its URL and process), the tenants, seconds and clients. */
export interface Load {
  base: string;
  pid: number;
  tenants: Tenant[];
  seconds: number;
  connections: number;
}

export interface Phase {
  phase: string;
  requests: number;
  errors: number;
  /** Answers that held another tenant's memory (must be 0). */
  foreign: number;
  rps: number;
  /** Memories written per second (write phases; a batch writes many a request). */
  memories_per_s: number;
  connections: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  api_cpu_pct: number;
  api_rss_mb: number;
}

/** CPU (% of one core, mean) and RSS (MB, max) of `pid` while `during` runs. */
async function sampled<T>(pid: number, during: () => Promise<T>): Promise<{ result: T; cpu: number; rss: number }> {
  const cpu: number[] = [];
  let rss = 0;
  const timer = setInterval(() => {
    pidusage(pid).then((s) => {
      cpu.push(s.cpu);
      rss = Math.max(rss, s.memory / 1048576);
    }, () => undefined);
  }, 250);
  try {
    const result = await during();
    return { result, cpu: cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length), rss };
  } finally {
    clearInterval(timer);
  }
}

/**
 * One phase of load: `path(tenant, n)` and `body(tenant, n)` make each request for a random
 * tenant; `check` reads each 2xx answer and says whether it holds another tenant's memory.
 */
export async function phase(
  name: string,
  load: Load,
  request: {
    method: 'GET' | 'POST';
    path: (t: Tenant, n: number) => string;
    body?: (t: Tenant, n: number) => unknown;
    check?: (t: Tenant, body: string) => boolean;
    /** Memories each request writes (a batch): the row's memories per second. */
    items?: number;
    connections?: number;
  },
): Promise<Phase> {
  const random = prng(name.length * 7919);
  let n = 0;
  let foreign = 0;
  let errors = 0;
  const latencies: number[] = [];
  const { result, cpu, rss } = await sampled(load.pid, async () => {
    return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: load.base,
      connections: request.connections ?? load.connections,
      duration: load.seconds,
      requests: [
        {
          setupRequest: (req: autocannon.Request, context: object) => {
            const t = load.tenants[Math.floor(random() * load.tenants.length)] as Tenant;
            (context as { tenant?: Tenant }).tenant = t;
            const i = n++;
            return {
              ...req,
              method: request.method,
              path: request.path(t, i),
              headers: { authorization: `Bearer ${t.token}`, 'x-mind-id': t.mindId, 'content-type': 'application/json' },
              body: request.body ? JSON.stringify(request.body(t, i)) : undefined,
            };
          },
          onResponse: (status: number, body: string, context: object) => {
            if (status >= 300) {
              if (errors++ < 3) log(`${name}: ${status} ${body.slice(0, 300)}`);
            } else if (request.check && !request.check((context as { tenant: Tenant }).tenant, body)) foreign++;
          },
        },
      ],
    }, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
    });
  });
  const row: Phase = {
    phase: name,
    requests: latencies.length,
    errors: errors + result.errors + result.timeouts,
    foreign,
    rps: Math.round(latencies.length / load.seconds),
    memories_per_s: Math.round(((request.items ?? 1) * latencies.length) / load.seconds),
    connections: request.connections ?? load.connections,
    p50_ms: +percentile(latencies, 50).toFixed(1),
    p95_ms: +percentile(latencies, 95).toFixed(1),
    p99_ms: +percentile(latencies, 99).toFixed(1),
    api_cpu_pct: Math.round(cpu),
    api_rss_mb: Math.round(rss),
  };
  log(`${name}: ${JSON.stringify(row)}`);
  return row;
}

/** True when every item of a search answer is the asking tenant's (keys carry the tenant). */
export function ownItems(t: Tenant, body: string): boolean {
  const items = (JSON.parse(body) as { items: { key: string }[] }).items;
  return items.every((m) => m.key.startsWith(`t${t.index}_`) || m.key.startsWith(`w${t.index}_`));
}

/**
 * Read latency over HTTP, sequential (one request in flight), against a running Engram:
 * GET /v1/memory/:id, GET /v1/memory/search, GET /v1/memory/recall. Seeds its own tenant with
 * `--memories` keyed memories first.
 *
 *   npm run bench:reads -- --url http://localhost:3000 [--memories 500] [--requests 300] [--json out.json]
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:3000' },
    memories: { type: 'string', default: '500' },
    requests: { type: 'string', default: '300' },
    json: { type: 'string' },
  },
});

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu'.split(' ');
const pick = (i: number) => WORDS[i % WORDS.length] as string;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(new URL(path, args.url), {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 200)}`);
  return text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text };
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length) };
}

async function time(n: number, fn: (i: number) => Promise<unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  return stats(ms);
}

async function main() {
  const n = Number(args.memories);
  const requests = Number(args.requests);
  const email = `bench-${Date.now()}@engram.local`;
  const reg = await call('POST', '/v1/auth/register', {}, { email, password: 'bench password', tenant_name: 'bench' });
  const auth = { Authorization: `Bearer ${reg.token as string}` };
  const mind = await call('POST', '/v1/minds', auth, { name: 'bench' });
  const key = await call('POST', `/v1/minds/${mind.id as string}/keys`, auth, {});
  const agent = { Authorization: `Bearer ${key.key as string}` };
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    const items = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
      category: 'note',
      key: `bench_${i + j}`,
      content: `Memory ${i + j} about ${pick(i + j)} ${pick((i + j) * 7)} and ${pick((i + j) * 13)}`,
      tags: [pick(i + j)],
    }));
    const res = await call('POST', '/v1/memory/batch', agent, { items });
    ids.push(...(res.items as { id: string }[]).map((x) => x.id));
  }
  const results = {
    memories: n,
    requests,
    get_by_id: await time(requests, (i) => call('GET', `/v1/memory/${ids[i % ids.length]}`, agent)),
    search: await time(requests, (i) => call('GET', `/v1/memory/search?q=${pick(i)}%20${pick(i * 3)}&limit=10`, agent)),
    recall: await time(Math.min(requests, 100), () => call('GET', '/v1/memory/recall?limit=50', agent)),
  };
  const row = (name: string, s: ReturnType<typeof stats>) =>
    `${name.padEnd(12)} ${s.p50.toFixed(2).padStart(8)} ${s.p95.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)}`;
  process.stdout.write(
    [
      `${n} memories, ${requests} sequential requests each (recall: ${Math.min(requests, 100)})`,
      'endpoint          p50      p95      p99   (ms)',
      row('GET /:id', results.get_by_id),
      row('search', results.search),
      row('recall', results.recall),
    ].join('\n') + '\n',
  );
  if (args.json) await writeFile(args.json, JSON.stringify(results, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

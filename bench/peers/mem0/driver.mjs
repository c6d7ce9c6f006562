/**
 * bench:peers's mem0 side: a child process (forked by bench/peers.ts with an IPC channel, cwd
 * here, MEM0_TELEMETRY=false) that holds one `Memory` of `mem0ai/oss` (pgvector store, OpenAI
 * embedder pointed at the bench's local embeddings server) and times its calls in process, as an
 * application embedding the library would see them. Plain JavaScript so that it resolves mem0ai
 * from this folder's node_modules (installed on demand by `npm ci` here), never the root's.
 *
 * Requests `{ id, op, ...args }`, answers `{ id, ok, result | error }`:
 *   init   { databaseUrl, embeddingsUrl, historyDbPath }      one Memory (one pg.Client, mem0's design)
 *   add    { items: [{ userId, text, diaId }], clients }        every item added, `clients` at a time
 *   search { queries: [{ userId, q }], clients, seconds }       searches in a loop for `seconds`
 *   rank   { queries: [{ userId, q }] }                          one search each, the dia_ids of the top 10
 *   close  {}
 * Timed answers carry the latencies (ms), the wall time and this process's CPU time (ms).
 */
import { readFileSync } from 'node:fs';
import { Memory } from 'mem0ai/oss';

let memory;

function cpuMs(start) {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** `fn(i)` for i in 0..n-1, `width` at a time; returns each call's latency (ms). */
async function pool(n, width, fn) {
  const latencies = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        await fn(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

const ops = {
  async init({ databaseUrl, embeddingsUrl, historyDbPath }) {
    memory = new Memory({
      version: 'v1.1',
      embedder: { provider: 'openai', config: { apiKey: 'local', baseURL: embeddingsUrl, model: 'engram-hashing-768', embeddingDims: 768 } },
      vectorStore: { provider: 'pgvector', config: { connectionString: databaseUrl, collectionName: 'memories', embeddingModelDims: 768 } },
      // Never called with infer: false; present because the config requires one.
      llm: { provider: 'openai', config: { apiKey: 'local', baseURL: embeddingsUrl, model: 'unused' } },
      historyDbPath,
    });
    // The first call initialises the store (tables, extension); done here, outside the timings.
    await memory.add('warm-up', { userId: 'warm-up', infer: false });
    await memory.search('warm-up', { filters: { user_id: 'warm-up' }, topK: 10 });
    return { version: JSON.parse(readFileSync(new URL('./node_modules/mem0ai/package.json', import.meta.url), 'utf8')).version };
  },

  async add({ items, clients }) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const latencies = await pool(items.length, clients, (i) => memory.add(items[i].text, { userId: items[i].userId, infer: false, metadata: { dia_id: items[i].diaId } }));
    return { latencies, wallMs: performance.now() - t0, cpuMs: cpuMs(cpu) };
  },

  async search({ queries, clients, seconds }) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    const latencies = [];
    let next = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end) {
          const { userId, q } = queries[next++ % queries.length];
          const s = performance.now();
          try {
            await memory.search(q, { filters: { user_id: userId }, topK: 10 });
            latencies.push(performance.now() - s);
          } catch {
            errors += 1;
          }
        }
      }),
    );
    return { latencies, errors, wallMs: performance.now() - t0, cpuMs: cpuMs(cpu) };
  },

  async rank({ queries }) {
    const results = [];
    for (const { userId, q } of queries) {
      const found = await memory.search(q, { filters: { user_id: userId }, topK: 10 });
      results.push(found.results.slice(0, 10).map((m) => (m.metadata && m.metadata.dia_id) ?? ''));
    }
    return { results };
  },

  async close() {
    // The store's pg.Client; mem0 has no close of its own on Memory in every version.
    const store = memory && memory.vectorStore;
    if (store && typeof store.close === 'function') await store.close().catch(() => undefined);
    return {};
  },
};

process.on('message', async (message) => {
  const { id, op, ...rest } = message;
  try {
    const result = await ops[op](rest);
    process.send({ id, ok: true, result });
  } catch (error) {
    process.send({ id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
process.send({ ready: true });

/**
 * bench:peers's embeddings server: one local OpenAI-compatible `POST /v1/embeddings` that answers
 * Engram's default embedder's vectors (the hashing embedder of libs/embeddings, 768-d,
 * L2-normalised), so that Engram (`EMBEDDINGS_URL`) and mem0 (`embedder.config.baseURL`) search
 * the same vectors. Its own process, so neither system's client shares its event loop.
 *
 *   tsx --tsconfig tsconfig.json bench/peers/embeddings-server.ts --port 3961
 *
 * Prints `listening <port>` on stdout when ready. Counts texts and requests (`GET /stats`).
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { HashingEmbedder } from '@engram/embeddings';

const { values: args } = parseArgs({ options: { port: { type: 'string', default: '3961' } } });
const embedder = new HashingEmbedder();
const stats = { requests: 0, texts: 0 };

const server = createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (req.method === 'GET' && req.url === '/stats') return answer(200, stats);
  if (req.method !== 'POST' || !req.url?.replace(/\/+$/, '').endsWith('/embeddings')) return answer(404, { error: { message: `no route ${req.method} ${req.url}` } });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: { input?: unknown; model?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return answer(400, { error: { message: 'the body is not JSON' } });
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || !input.every((x) => typeof x === 'string')) return answer(400, { error: { message: 'input must be a string or an array of strings' } });
    stats.requests += 1;
    stats.texts += input.length;
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: embedder.embedOne(text) }));
    answer(200, { object: 'list', data, model: typeof body.model === 'string' ? body.model : embedder.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(args.port), '127.0.0.1', () => process.stdout.write(`listening ${args.port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

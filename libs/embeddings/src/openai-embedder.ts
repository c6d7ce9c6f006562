import { EMBEDDING_DIMENSIONS, EmbeddingError, type Embedder } from './embedder';

export interface OpenAiEmbedderOptions {
  /** Base URL of an OpenAI-compatible API (`.../v1`); requests go to `/embeddings`. */
  url: string;
  model: string;
  apiKey?: string;
  batchSize: number;
  timeoutMs: number;
  /** Attempts per batch (the first and the retries). */
  attempts?: number;
  /** Backoff before the first retry (ms); doubles each time. */
  backoffMs?: number;
  /** Send `dimensions: 768` with each request (default true). */
  sendDimensions?: boolean;
}

/** Statuses that refuse the texts sent rather than us (bad request, too large, unprocessable). */
const INPUT_STATUSES = new Set([400, 413, 422]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Errors worth another attempt: the network, a timeout, 429 and 5xx. */
class Retryable extends EmbeddingError {
  constructor(message: string) {
    super(message, 'outage');
  }
}

/** L2-normalises in place; the zero vector stays zero. */
export function normalize(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint: texts go in batches of `batchSize`, each
 * request bounded by `timeoutMs` and retried on network errors, timeouts, 429 and 5xx with
 * exponential backoff; answers must be 768-d (else EmbeddingError) and are L2-normalised.
 */
export class OpenAiEmbedder implements Embedder {
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly model: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.batchWithRetry(texts.slice(i, i + this.options.batchSize))));
    }
    return out;
  }

  private async batchWithRetry(batch: readonly string[]): Promise<number[][]> {
    const attempts = this.options.attempts ?? 3;
    let delay = this.options.backoffMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.batch(batch);
      } catch (error) {
        if (!(error instanceof Retryable) || attempt >= attempts) throw error instanceof EmbeddingError ? new EmbeddingError(error.message, error.reason) : error;
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  private async batch(batch: readonly string[]): Promise<number[][]> {
    let res: Response;
    try {
      res = await fetch(`${this.options.url.replace(/\/+$/, '')}/embeddings`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        // `dimensions` makes OpenAI's text-embedding-3 models answer 768-d (Matryoshka truncation);
        // endpoints that refuse the field are served with sendDimensions false.
        body: JSON.stringify({ model: this.model, input: batch, ...(this.options.sendDimensions === false ? {} : { dimensions: this.dimensions }) }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      // By name: the abort error may come from another realm (jest's VM), where instanceof fails.
      const timedOut = (error as { name?: unknown })?.name === 'TimeoutError';
      throw new Retryable(timedOut ? `embeddings endpoint timed out after ${this.options.timeoutMs} ms` : `embeddings endpoint unreachable: ${String(error)}`);
    }
    if (res.status === 429 || res.status >= 500) throw new Retryable(`embeddings endpoint answered ${res.status}`);
    if (!res.ok) throw new EmbeddingError(`embeddings endpoint answered ${res.status}`, INPUT_STATUSES.has(res.status) ? 'input' : 'config');
    let body: { data?: { embedding?: unknown; index?: unknown }[] } | undefined;
    try {
      body = (await res.json()) as typeof body;
    } catch (error) {
      // The timeout covers the body too: a body that stalls or breaks off is an outage, not a refusal.
      throw new Retryable(`embeddings endpoint answer unreadable: ${(error as { message?: string })?.message ?? String(error)}`);
    }
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== batch.length) {
      throw new EmbeddingError(`embeddings endpoint answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${batch.length} texts`);
    }
    const vectors: number[][] = new Array(batch.length);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const v = item.embedding;
      if (!Array.isArray(v) || v.length !== this.dimensions || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingError(`embeddings endpoint answered a vector of ${Array.isArray(v) ? v.length : 'no'} dimensions; ${this.dimensions} are required`);
      }
      if (!Number.isInteger(index) || index < 0 || index >= batch.length || vectors[index]) {
        throw new EmbeddingError(`embeddings endpoint answered index ${index} twice or out of range for ${batch.length} texts`);
      }
      if (!(v as number[]).some((x) => x !== 0)) throw new EmbeddingError('embeddings endpoint answered a zero vector, which has no direction');
      vectors[index] = normalize([...(v as number[])]);
    });
    return vectors;
  }
}

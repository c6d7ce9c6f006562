import { setTimeout as delay } from 'node:timers/promises';
import pRetry from 'p-retry';
import { EMBEDDING_DIMENSIONS, EmbeddingError, type Embedder } from './embedder';

export interface OpenAiEmbedderOptions {
  /** Base URL of an OpenAI-compatible API (`.../v1`); requests go to `/embeddings`. */
  url: string;
  model: string;
  apiKey?: string;
  batchSize: number;
  /** Bound of each request, answer body included (ms). */
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

/**
 * The longest `Retry-After` waited for before a retry (ms). A provider that asks for longer is
 * left alone now: the batch fails as an outage, and the memories wait (pending) for the backfill,
 * rather than a worker or a write sitting idle.
 */
export const MAX_RETRY_AFTER_MS = 10_000;

/** An outage whose answer said when to come back (`Retry-After`, or OpenAI's `retry-after-ms`). */
class ProviderBusy extends EmbeddingError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message, 'outage');
  }
}

/** How long an answer asks to wait (ms): `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  const at = Number.isFinite(seconds) ? Date.now() + seconds * 1000 : Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
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
 * request bounded by `timeoutMs` (the answer's body too) and retried (p-retry) on network errors,
 * timeouts, a body cut short, 429 and 5xx, with exponential backoff from `backoffMs`, or what
 * `Retry-After` asks when longer (up to {@link MAX_RETRY_AFTER_MS}); answers must be 768-d (else
 * EmbeddingError) and are L2-normalised. A caller's `signal` cuts the request in flight or the
 * pause, and stops the retries.
 */
export class OpenAiEmbedder implements Embedder {
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly model: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.batchWithRetry(texts.slice(i, i + this.options.batchSize), signal)));
    }
    return out;
  }

  private batchWithRetry(batch: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const backoffMs = this.options.backoffMs ?? 250;
    return pRetry(() => this.batch(batch, signal), {
      retries: (this.options.attempts ?? 3) - 1,
      // p-retry 4 cannot cut its own pause short (5+ can, but is ESM-only, which jest cannot
      // require on Node 20), so its pause is nil and the backoff is taken below, where the
      // caller's signal ends it: a write that stopped waiting must not sit out a backoff.
      minTimeout: 0,
      // Throwing ends the retries with that error: only an outage is worth another attempt (a
      // refusal would be refused again), and not after the last one nor once the caller left.
      onFailedAttempt: async (error) => {
        if (!(error instanceof EmbeddingError) || !error.transient || error.retriesLeft === 0 || signal?.aborted) throw error;
        const asked = error instanceof ProviderBusy ? error.retryAfterMs : 0;
        if (asked > MAX_RETRY_AFTER_MS) throw error;
        await delay(Math.max(asked, backoffMs * 2 ** (error.attemptNumber - 1)), undefined, { signal }).catch(() => {
          throw error;
        });
      },
    });
  }

  private async batch(batch: readonly string[], caller: AbortSignal | undefined): Promise<number[][]> {
    if (caller?.aborted) throw new EmbeddingError('embedding cancelled by the caller', 'outage');
    // One signal for the whole exchange, body included; the caller's ends it early.
    const signal = caller ? AbortSignal.any([caller, AbortSignal.timeout(this.options.timeoutMs)]) : AbortSignal.timeout(this.options.timeoutMs);
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
        signal,
      });
    } catch (error) {
      throw this.failed(error, caller, 'unreachable');
    }
    if (!res.ok) {
      // The error body is not read: the status says all, and the connection goes back to the pool.
      await res.body?.cancel().catch(() => undefined);
      const message = `embeddings endpoint answered ${res.status}`;
      if (res.status === 429 || res.status >= 500) {
        const wait = retryAfterMs(res.headers);
        throw wait === undefined ? new EmbeddingError(message, 'outage') : new ProviderBusy(`${message} (Retry-After ${wait} ms)`, wait);
      }
      throw new EmbeddingError(message, INPUT_STATUSES.has(res.status) ? 'input' : 'config');
    }
    let body: { data?: { embedding?: unknown; index?: unknown }[] } | undefined;
    try {
      body = (await res.json()) as typeof body;
    } catch (error) {
      // The timeout covers the body too: a body that stalls or breaks off is an outage, not a refusal.
      throw this.failed(error, caller, 'answer unreadable');
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

  // An exchange that broke off (network, timeout, a body cut short, the caller's signal): an outage.
  private failed(error: unknown, caller: AbortSignal | undefined, what: string): EmbeddingError {
    if (caller?.aborted) return new EmbeddingError('embedding cancelled by the caller', 'outage');
    // By name: the abort error may come from another realm (jest's VM), where instanceof fails.
    if ((error as { name?: unknown })?.name === 'TimeoutError') return new EmbeddingError(`embeddings endpoint timed out after ${this.options.timeoutMs} ms`, 'outage');
    // fetch says only "fetch failed"; its cause names the socket error (ECONNREFUSED, ENOTFOUND...).
    const e = error as { message?: unknown; cause?: { message?: unknown } } | undefined;
    const detail = typeof e?.message === 'string' ? e.message + (typeof e.cause?.message === 'string' ? ` (${e.cause.message})` : '') : String(error);
    return new EmbeddingError(`embeddings endpoint ${what}: ${detail}`, 'outage');
  }
}

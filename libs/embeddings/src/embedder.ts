/** Turns texts into unit vectors for cosine search. */
export interface Embedder {
  /** Names the model; every memory records it, and a change re-embeds. */
  readonly model: string;
  /** Vector length: 768 (the `halfvec(768)` column, docs/design.md §3). */
  readonly dimensions: number;
  /**
   * One L2-normalised vector per text, in order. `signal` tells a remote embedder the caller
   * stopped waiting: it cuts the request in flight and retries no more.
   * @throws EmbeddingError when the provider fails or the signal aborted (callers store the
   *   memory and embed it later)
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

export const EMBEDDING_DIMENSIONS = 768;

/**
 * Why embedding failed:
 * - `outage`: the provider is down, slow or rate-limiting (network, timeout, 429, 5xx, a body cut
 *   short): the same texts will likely succeed later;
 * - `config`: the provider refuses us, whatever the text (401, 403, 404, wrong dimensions, a
 *   malformed answer): an operator must fix EMBEDDINGS_URL, _API_KEY or _MODEL;
 * - `input`: the provider refused these texts (400, 413, 422): another text may pass.
 */
export type EmbeddingFailure = 'outage' | 'config' | 'input';

/** The provider failed, timed out, refused, or answered vectors of the wrong shape. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly reason: EmbeddingFailure = 'config',
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }

  /** True for an outage: retrying later is the remedy. */
  get transient(): boolean {
    return this.reason === 'outage';
  }
}

/** Injection token of the configured {@link Embedder}. */
export const EMBEDDER = Symbol('EMBEDDER');

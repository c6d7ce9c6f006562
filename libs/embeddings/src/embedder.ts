/** Turns texts into unit vectors for cosine search. */
export interface Embedder {
  /** Names the model; every memory records it, and a change re-embeds. */
  readonly model: string;
  /** Vector length: 768 (the `vector(768)` column, DESIGN §3). */
  readonly dimensions: number;
  /**
   * One L2-normalised vector per text, in order.
   * @throws EmbeddingError when the provider fails (callers store the memory and embed it later)
   */
  embed(texts: readonly string[]): Promise<number[][]>;
}

export const EMBEDDING_DIMENSIONS = 768;

/** The provider failed, timed out, or answered vectors of the wrong shape. */
export class EmbeddingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/** Injection token of the configured {@link Embedder}. */
export const EMBEDDER = Symbol('EMBEDDER');

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EMBEDDER, type Embedder } from './embedder';
import { HashingEmbedder } from './hashing-embedder';

/** What a write gets: the model, and a vector per text or null when it must wait (pending). */
export interface RequestEmbeddings {
  model: string;
  vectors: (number[] | null)[];
}

/**
 * Embeddings inside a request (writes and search queries), which must stay fast and never fail
 * for embeddings: the local embedder answers at once; a remote one gets `EMBEDDINGS_WAIT_MS`,
 * after which a write stores the memory without a vector (`embedding_status = pending`, the
 * backfill embeds it) and a search goes on with full text alone.
 */
@Injectable()
export class RequestEmbedder {
  private readonly logger = new Logger('Embeddings');

  constructor(
    @Inject(EMBEDDER) readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** True when embedding costs no I/O (it may run inside a transaction). */
  get local(): boolean {
    return this.embedder instanceof HashingEmbedder;
  }

  async tryEmbed(texts: readonly string[]): Promise<RequestEmbeddings> {
    const none = { model: this.embedder.model, vectors: texts.map(() => null) };
    if (texts.length === 0) return none;
    if (this.local) return { model: this.embedder.model, vectors: await this.embedder.embed(texts) };
    let timer: NodeJS.Timeout | undefined;
    try {
      const vectors = await Promise.race([
        this.embedder.embed(texts),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.config.EMBEDDINGS_WAIT_MS} ms`)), this.config.EMBEDDINGS_WAIT_MS);
        }),
      ]);
      return { model: this.embedder.model, vectors };
    } catch (error) {
      this.logger.warn(`embedding deferred for ${texts.length} memories: ${error instanceof Error ? error.message : String(error)}`);
      return none;
    } finally {
      clearTimeout(timer);
    }
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EMBEDDER, type Embedder } from './embedder';
import { HashingEmbedder } from './hashing-embedder';

/** How long requests go without the provider after it failed one (ms). */
const COOL_DOWN_MS = 30_000;

/** What a write gets: the model, and a vector per text or null when it must wait (pending). */
export interface RequestEmbeddings {
  model: string;
  vectors: (number[] | null)[];
}

/**
 * Embeddings inside a request (writes and search queries), which must stay fast and never fail
 * for embeddings: the local embedder answers at once; a remote one gets `EMBEDDINGS_WAIT_MS`,
 * after which a write stores the memory without a vector (`embedding_status = pending`, the
 * backfill embeds it) and a search goes on with full text alone. After a failure, requests do
 * not wait for the provider for 30 s.
 */
@Injectable()
export class RequestEmbedder {
  private readonly logger = new Logger('Embeddings');
  private skipUntil = 0;

  constructor(
    @Inject(EMBEDDER) readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** True when embedding costs no I/O (it may run inside a transaction). */
  get local(): boolean {
    return this.embedder instanceof HashingEmbedder;
  }

  /** The provider answered elsewhere (the backfill): requests use it again at once. */
  providerRecovered(): void {
    this.skipUntil = 0;
  }

  async tryEmbed(texts: readonly string[]): Promise<RequestEmbeddings> {
    const none = { model: this.embedder.model, vectors: texts.map(() => null) };
    if (texts.length === 0) return none;
    if (this.local) return { model: this.embedder.model, vectors: await this.embedder.embed(texts) };
    // After a failure, requests stop waiting for a while: an outage must not slow every write
    // and search by EMBEDDINGS_WAIT_MS (the backfill keeps trying meanwhile).
    if (Date.now() < this.skipUntil) return none;
    // Aborting, not just no longer awaiting: the provider's answer would be thrown away, so its
    // request (and any retry) is ended too; the backfill or a worker embeds the memory.
    const wait = AbortSignal.timeout(this.config.EMBEDDINGS_WAIT_MS);
    try {
      return { model: this.embedder.model, vectors: await this.embedder.embed(texts, wait) };
    } catch (error) {
      this.skipUntil = Date.now() + COOL_DOWN_MS;
      const why = wait.aborted ? `no answer within ${this.config.EMBEDDINGS_WAIT_MS} ms` : error instanceof Error ? error.message : String(error);
      this.logger.warn(`embedding deferred for ${texts.length} memories: ${why}; requests skip the provider for ${COOL_DOWN_MS / 1000} s`);
      return none;
    }
  }
}

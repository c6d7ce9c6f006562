import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EMBEDDER, type Embedder } from './embedder';
import { HashingEmbedder } from './hashing-embedder';
import { OpenAiEmbedder } from './openai-embedder';
import { RequestEmbedder } from './request-embedder';


/** The embedder: an OpenAI-compatible endpoint when `EMBEDDINGS_URL` is set, else the local hashing embedder. */
export function embedderFor(config: AppConfig): Embedder {
  if (!config.EMBEDDINGS_URL) return new HashingEmbedder();
  return new OpenAiEmbedder({
    url: config.EMBEDDINGS_URL,
    model: config.EMBEDDINGS_MODEL,
    apiKey: config.EMBEDDINGS_API_KEY,
    batchSize: config.EMBEDDINGS_BATCH_SIZE,
    timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
    sendDimensions: config.EMBEDDINGS_SEND_DIMENSIONS,
  });
}

@Global()
@Module({
  providers: [{ provide: EMBEDDER, inject: [APP_CONFIG], useFactory: embedderFor }, RequestEmbedder],
  exports: [EMBEDDER, RequestEmbedder],
})
export class EmbeddingsModule {}

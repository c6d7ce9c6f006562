export * from './embedder';
export * from './hashing-embedder';
export * from './openai-embedder';
export * from './embeddings.module';
export * from './request-embedder';

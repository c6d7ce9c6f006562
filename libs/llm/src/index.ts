export * from './chat-client';
export * from './fact-extractor';
export * from './importance-scorer';
export * from './llm.module';

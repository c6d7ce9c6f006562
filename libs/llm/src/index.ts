export * from './chat-client';
export * from './importance-scorer';
export * from './llm.module';

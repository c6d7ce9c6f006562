export * from './new-memory';
export * from './memory-change';

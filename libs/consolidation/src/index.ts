export * from './conversation-memory.service';
export * from './consolidation.module';

export * from './conversation-memory.service';
export * from './consolidation.module';
export * from './forgetting-sweep.service';
export * from './embedding-backfill.service';
export * from './in-process-scheduler';
export * from './vector-index-upkeep.service';

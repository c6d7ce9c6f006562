export * from './conversation-memory.service';
export * from './consolidation.module';
export * from './lifecycle-sweeps.service';
export * from './embedding-backfill.service';
export * from './in-process-scheduler';
export * from './vector-index-upkeep.service';
export * from './lifecycle-jobs.service';
export * from './systems-consolidation.service';

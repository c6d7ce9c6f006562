import { Global, Module } from '@nestjs/common';
import { ConversationMemory } from './conversation-memory.service';
import { LifecycleSweeps } from './lifecycle-sweeps.service';
import { EmbeddingBackfill } from './embedding-backfill.service';
import { InProcessScheduler } from './in-process-scheduler';
import { VectorIndexUpkeep } from './vector-index-upkeep.service';
import { LifecycleJobs } from './lifecycle-jobs.service';
import { SystemsConsolidation } from './systems-consolidation.service';

/** The conversation stream: STM and consolidation to long-term memory (DESIGN §4). */
@Global()
@Module({
  providers: [ConversationMemory, LifecycleSweeps, EmbeddingBackfill, VectorIndexUpkeep, LifecycleJobs, SystemsConsolidation, InProcessScheduler],
  exports: [ConversationMemory, LifecycleSweeps, EmbeddingBackfill, VectorIndexUpkeep, LifecycleJobs, SystemsConsolidation, InProcessScheduler],
})
export class ConsolidationModule {}

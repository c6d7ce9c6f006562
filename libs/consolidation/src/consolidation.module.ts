import { Global, Module } from '@nestjs/common';
import { ConversationMemory } from './conversation-memory.service';
import { ForgettingSweep } from './forgetting-sweep.service';
import { EmbeddingBackfill } from './embedding-backfill.service';
import { InProcessScheduler } from './in-process-scheduler';
import { VectorIndexUpkeep } from './vector-index-upkeep.service';

/** The conversation stream: STM and consolidation to long-term memory (DESIGN §4). */
@Global()
@Module({
  providers: [ConversationMemory, ForgettingSweep, EmbeddingBackfill, VectorIndexUpkeep, InProcessScheduler],
  exports: [ConversationMemory, ForgettingSweep, EmbeddingBackfill, VectorIndexUpkeep, InProcessScheduler],
})
export class ConsolidationModule {}

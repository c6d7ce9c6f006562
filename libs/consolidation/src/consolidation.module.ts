import { Global, Module } from '@nestjs/common';
import { ConversationMemory } from './conversation-memory.service';
import { ForgettingSweep } from './forgetting-sweep.service';
import { EmbeddingBackfill } from './embedding-backfill.service';
import { InProcessScheduler } from './in-process-scheduler';

/** The conversation stream: STM and consolidation to long-term memory (DESIGN §4). */
@Global()
@Module({
  providers: [ConversationMemory, ForgettingSweep, EmbeddingBackfill, InProcessScheduler],
  exports: [ConversationMemory, ForgettingSweep, EmbeddingBackfill, InProcessScheduler],
})
export class ConsolidationModule {}

import { Global, Module } from '@nestjs/common';
import { ConversationMemory } from './conversation-memory.service';

/** The conversation stream: STM and consolidation to long-term memory (DESIGN §4). */
@Global()
@Module({ providers: [ConversationMemory], exports: [ConversationMemory] })
export class ConsolidationModule {}

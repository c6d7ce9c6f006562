import { Global, Module } from '@nestjs/common';
import { ChatClient } from './chat-client';
import { ImportanceScorer } from './importance-scorer';

/** The LLM provider (OpenAI-compatible chat) and what uses it. */
@Global()
@Module({ providers: [ChatClient, ImportanceScorer], exports: [ChatClient, ImportanceScorer] })
export class LlmModule {}

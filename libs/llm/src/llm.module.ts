import { Global, Module } from '@nestjs/common';
import { ChatClient } from './chat-client';
import { FactExtractor } from './fact-extractor';
import { ImportanceScorer } from './importance-scorer';

/** The LLM provider (OpenAI-compatible chat) and what uses it. */
@Global()
@Module({ providers: [ChatClient, ImportanceScorer, FactExtractor], exports: [ChatClient, ImportanceScorer, FactExtractor] })
export class LlmModule {}

import { Injectable, Logger } from '@nestjs/common';
import {
  emotionalEncoding,
  importancePrompt,
  parseLlmImportance,
  scoreByRulesAndFacts,
  type FactContext,
  type ImportanceResult,
  type LifecycleConfig,
  type MemoryPriority,
} from '@engram/memory';
import { ChatClient } from './chat-client';

/**
 * Dual-path importance scoring (seed 001 §1.2): the LLM when `LLM_URL` is set, parsed in three
 * levels (JSON → regex → rule engine); the rule engine otherwise (seed 001's rules plus the fact
 * score: libs/memory `scoreByRulesAndFacts`). One external failure never
 * stops a write: every failure degrades to the rules, and the result says which path scored.
 */
@Injectable()
export class ImportanceScorer {
  private readonly logger = new Logger('ImportanceScorer');

  constructor(private readonly chat: ChatClient) {}

  /**
   * @param meta.previous the conversation's message before this one (the rule path's `answers_question` signal)
   * @returns a score in 0..1 and the path that made it
   */
  async score(content: string, meta: { category?: string; priority?: MemoryPriority } & FactContext, config: LifecycleConfig): Promise<ImportanceResult> {
    if (this.chat.enabled) {
      try {
        const answer = await this.chat.complete(importancePrompt(content, meta));
        const parsed = parseLlmImportance(answer, config);
        if (parsed) return parsed;
        this.logger.warn('LLM answer had no usable importance score; the rule engine scores instead');
      } catch (error) {
        this.logger.warn(`LLM scoring failed (${error instanceof Error ? error.message : String(error)}); the rule engine scores instead`);
      }
    }
    return { score: scoreByRulesAndFacts(content, meta, config), path: 'rules' };
  }

  /** Emotional weight 0..1 of a text (lexical; see libs/memory emotionalEncoding). */
  emotion(content: string): number {
    return emotionalEncoding(content).weight;
  }
}

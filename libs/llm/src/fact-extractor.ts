import { Injectable, Logger } from '@nestjs/common';
import { FACTS_JSON_SCHEMA, factsPrompt, parseLlmFacts, type ExtractedFact, type FactsParse } from '@engram/memory';
import { ChatClient } from './chat-client';

/**
 * Fact extraction at consolidation (docs/design.md §4.3, "The LLM path"), when `LLM_URL` is set:
 * one call per consolidated entry, asked for a JSON schema and read in three levels (libs/memory
 * `parseLlmFacts`). Any failure (unreachable, a timeout, a non-2xx, nothing usable) answers
 * undefined: the rule path's episode stands alone.
 */
@Injectable()
export class FactExtractor {
  private readonly logger = new Logger('FactExtractor');

  constructor(private readonly chat: ChatClient) {}

  get enabled(): boolean {
    return this.chat.enabled;
  }

  /**
   * @param entry the entry's text (`<speaker>: <message>` lines)
   * @param saidAt its event time
   * @param keys the mind's existing `category/key`s, newest first
   * @returns the facts and how the answer was read, or undefined when the LLM gave nothing usable
   */
  async extract(entry: string, saidAt: Date, keys: readonly string[]): Promise<{ facts: ExtractedFact[]; parse: FactsParse } | undefined> {
    try {
      const answer = await this.chat.complete(factsPrompt(entry, saidAt, keys), { jsonSchema: FACTS_JSON_SCHEMA });
      const parsed = parseLlmFacts(answer);
      if (!parsed) this.logger.warn('LLM answer had no usable facts; the episode stands alone');
      return parsed;
    } catch (error) {
      this.logger.warn(`LLM fact extraction failed (${error instanceof Error ? error.message : String(error)}); the episode stands alone`);
      return undefined;
    }
  }
}

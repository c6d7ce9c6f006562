import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import { MemoriesRepository, TenantDb } from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { FactExtractor } from '@engram/llm';
import { FACT_KEYS_SHOWN, conversationContext, type LifecycleConfig, type SourcedStmEntry } from '@engram/memory';
import type { ConsolidationOutcome } from './conversation.types';
import type { MemoryScope } from './memory-scope';
import { MemoryWriter } from './memory-writer.service';

/**
 * The LLM path of consolidation (docs/design.md §4.3; libs/llm `FactExtractor`), run by the
 * conversation stream after the transaction that wrote the episodes, so that no connection waits
 * on the model: for each new episode, the keyed facts the LLM extracts from its messages, each
 * upserted through the one writer (`importance_source: llm_facts`, `memory_type: semantic`, on the
 * entry's event time, the messages as `source_refs`): a new value of an existing key replaces the
 * old one and the history keeps it. Without `LLM_URL`, or when the model gives nothing usable,
 * nothing more is written: the episode (the rule path) stands alone.
 */
@Injectable()
export class FactConsolidation {
  /** The STM entry each new episode came from (an outcome is made inside the transaction, read after it). */
  private readonly entries = new WeakMap<ConsolidationOutcome, SourcedStmEntry>();

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly memories: MemoriesRepository,
    private readonly writer: MemoryWriter,
    private readonly extractor: FactExtractor,
    private readonly embedder: RequestEmbedder,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Records the entry a new episode came from, for {@link extract}. */
  remember(outcome: ConsolidationOutcome, entry: SourcedStmEntry): void {
    if (this.extractor.enabled) this.entries.set(outcome, entry);
  }

  /** The facts of each new episode among `outcomes`, upserted; adds `facts` to each outcome the model answered for. */
  async extract(scope: MemoryScope, conversationId: string, outcomes: readonly ConsolidationOutcome[], config: LifecycleConfig): Promise<void> {
    const pending = outcomes.flatMap((outcome) => {
      const entry = this.entries.get(outcome);
      return entry ? [{ outcome, entry }] : [];
    });
    if (pending.length === 0) return;
    // The mind's keys once; each fact written adds its own for the next entry.
    const keys = await this.tenantDb.run(scope.tenantId, (tx) => this.memories.factKeys(tx, scope.mindId, FACT_KEYS_SHOWN));
    for (const { outcome, entry } of pending) {
      const extracted = await this.extractor.extract(entry.content, entry.entered_at, keys);
      if (!extracted) continue;
      const vectors = this.embedder.local ? (await this.embedder.tryEmbed(extracted.facts.map((f) => f.content))).vectors : [];
      const now = this.clock.now();
      outcome.facts = await this.tenantDb.run(scope.tenantId, async (tx) => {
        const out: NonNullable<ConsolidationOutcome['facts']> = [];
        for (const [i, fact] of extracted.facts.entries()) {
          // The newest fact wins (issue 15): a conversation older than the value stored (a history
          // sent late) does not replace it. A tester's find: a 2023 chat backfilled after a 2025 one
          // made "works at Acme" current again.
          // A memory a person verified is theirs to change (seed 002 "Verification"): a model's reading
          // of a chat never replaces it (a tester's find); the episode keeps what was said.
          const stored = await this.memories.findByKeyForUpdate(tx, scope.mindId, fact.category, fact.key);
          if (stored?.verified || (stored?.occurred_at && stored.occurred_at.getTime() > entry.entered_at.getTime())) {
            out.push({ memory_id: stored.id, category: fact.category, key: fact.key, status: 'unchanged' });
            continue;
          }
          const write = {
            category: fact.category,
            key: fact.key,
            content: fact.content,
            occurred_at: entry.entered_at.toISOString(),
            memory_type: 'semantic' as const,
            source_refs: entry.message_ids.slice(-100),
            temporal_context: conversationContext(conversationId),
          };
          const result = await this.writer.upsert(tx, scope, write, { score: fact.importance, path: 'llm_facts' }, { model: this.embedder.embedder.model, vector: vectors[i] ?? null }, now, config);
          out.push({ memory_id: result.memory.id, category: fact.category, key: fact.key, status: result.status });
        }
        return out;
      });
      for (const f of outcome.facts) if (!keys.includes(`${f.category}/${f.key}`)) keys.unshift(`${f.category}/${f.key}`);
    }
  }
}

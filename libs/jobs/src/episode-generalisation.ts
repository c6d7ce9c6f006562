import { Injectable, Logger } from '@nestjs/common';
import { MemoriesRepository, MemorySweepsRepository, TenantDb } from '@engram/db';
import { ChatClient, ChatError } from '@engram/llm';
import { clusterEpisodes, generaliseCluster, type Episode, type Generalisation, type LifecycleConfig } from '@engram/memory';
import { MemoryWriter } from '@engram/services';

/** Episodes looked at per mind and run: clustering compares them pairwise. */
export const GENERALISE_BATCH = 2000;

/**
 * Systems consolidation's second half (seed 000; docs/design.md §4): clusters of related
 * episodes that have moved to the neocortex are generalised into semantic memories, by an LLM
 * summary when LLM_URL is configured and extractively otherwise (libs/memory
 * `generaliseCluster`). The semantic memory is long-term and cortical from the start (its
 * strength that of the long-term layer), lists its episodes in `association_graph.generalises`,
 * and each episode points back with `association_graph.generalised_into`; an episode is
 * generalised once. The key is derived from the members' ids, so a run that is retried or
 * repeated adds nothing.
 */
@Injectable()
export class EpisodeGeneralisation {
  private readonly logger = new Logger('EpisodeGeneralisation');

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly sweeps: MemorySweepsRepository,
    private readonly memories: MemoriesRepository,
    private readonly writer: MemoryWriter,
    private readonly chat: ChatClient,
  ) {}

  /** Generalises every mind's clusters of episodes. @returns the semantic memories made */
  async generalise(tenantId: string, config: LifecycleConfig, now: Date): Promise<number> {
    const minds = await this.tenantDb.run(tenantId, (tx) => this.sweeps.mindsWithEpisodesToGeneralise(tx));
    let made = 0;
    for (const mindId of minds) {
      const episodes: Episode[] = await this.tenantDb.run(tenantId, (tx) => this.sweeps.episodesToGeneralise(tx, mindId, GENERALISE_BATCH));
      for (const cluster of clusterEpisodes(episodes, config)) {
        const g = generaliseCluster(cluster, config);
        if (await this.store(tenantId, mindId, g, await this.summarise(g, cluster), config, now)) made += 1;
      }
    }
    return made;
  }

  /** An LLM's one-sentence generalisation when one is configured; the extractive one otherwise or on failure. */
  private async summarise(g: Generalisation, cluster: Episode[]): Promise<{ content: string; by: 'llm' | 'extractive' }> {
    if (!this.chat.enabled) return { content: g.content, by: 'extractive' };
    try {
      const answer = await this.chat.complete([
        {
          role: 'system',
          content:
            'You turn related episodic memories into one semantic memory: a single sentence stating the general fact, habit or pattern they show, without dates, under 300 characters. Answer with the sentence only.',
        },
        { role: 'user', content: cluster.map((e) => `- (${e.occurred_at.toISOString().slice(0, 10)}) ${e.content.slice(0, 500)}`).join('\n') },
      ]);
      const sentence = answer.trim().replace(/\s+/g, ' ');
      if (sentence.length > 0 && sentence.length <= 1000) return { content: sentence, by: 'llm' };
    } catch (error) {
      if (!(error instanceof ChatError)) throw error;
      this.logger.warn(`LLM generalisation failed, extractive instead: ${error.message}`);
    }
    return { content: g.content, by: 'extractive' };
  }

  /** Writes the semantic memory (unless its key exists) and links the episodes to it, in one transaction. @returns whether it was new */
  private store(tenantId: string, mindId: string, g: Generalisation, summary: { content: string; by: string }, config: LifecycleConfig, now: Date): Promise<boolean> {
    return this.tenantDb.run(tenantId, async (tx) => {
      const created = await this.writer.create(
        tx,
        {
          mindId,
          category: 'fact',
          key: g.key,
          content: summary.content,
          tags: g.tags,
          provenance: { source: 'agent', verified: false, confidence: 0.6 },
          occurredAt: g.to,
          now,
          memoryType: 'semantic',
          importance: { score: g.importance, path: 'rules' },
          // Generalised knowledge is long-term and cortical from the start (seed 000).
          layer: 'long_term',
          storageLocation: 'neocortex',
          associationGraph: { generalises: g.member_ids },
          payload: {
            concept: g.shared_words[0] ?? null,
            attributes: { recurring: g.shared_words, episodes: g.member_ids.length, from: g.from.toISOString(), to: g.to.toISOString() },
            learning: {
              generalised_by: summary.by,
              abstraction_level: g.abstraction_level,
              context_dependency: g.context_dependency,
              generalization: g.generalization,
              semantic: g.semantic,
            },
          },
        },
        config,
        { type: 'system', id: null },
        undefined,
        { consolidated: 'generalised' },
      );
      const id = created?.id ?? (await this.memories.findByKeyForUpdate(tx, mindId, 'fact', g.key))?.id;
      if (!id) return false;
      await this.sweeps.linkGeneralised(tx, g.member_ids, id);
      return created !== undefined;
    });
  }
}

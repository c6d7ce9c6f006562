import { Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { LifecycleSettings, MemoriesRepository, MemoryVersionsRepository, TenantDb, newMemoryRow } from '@engram/db';
import { ChatClient, ChatError } from '@engram/llm';
import { clusterEpisodes, generaliseCluster, type Episode, type Generalisation } from '@engram/memory';

/** Episodes looked at per mind and run: clustering compares them pairwise. */
export const GENERALISE_BATCH = 2000;

/**
 * Systems consolidation's second half (seed 000; DESIGN §7 `systems-consolidation`): clusters of
 * related episodes that have moved to the neocortex are generalised into semantic memories,
 * by an LLM summary when LLM_URL is configured and extractively otherwise (libs/memory
 * generaliseCluster). The semantic memory lists its episodes in `association_graph.generalises`
 * and each episode points back with `association_graph.generalised_into`; an episode is
 * generalised once. The key is derived from the members' ids, so a run that is retried or
 * repeated adds nothing.
 */
@Injectable()
export class SystemsConsolidation {
  private readonly logger = new Logger('SystemsConsolidation');

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly chat: ChatClient,
  ) {}

  /** Generalises every mind's clusters of episodes. @returns the semantic memories made. */
  async generalise(tenantId: string, now: Date): Promise<number> {
    const config = await this.settings.forTenant(tenantId);
    const minds = await this.tenantDb.run(tenantId, async ({ trx, tenantId: t }) =>
      (
        await sql<{ mind_id: string }>`
          select distinct mind_id from memories
          where tenant_id = ${t} and memory_type = 'episodic' and storage_location = 'neocortex'
            and forgotten_at is null and not (association_graph ? 'generalised_into')`.execute(trx)
      ).rows.map((r) => r.mind_id),
    );
    let made = 0;
    for (const mindId of minds) {
      const episodes = await this.tenantDb.run(tenantId, ({ trx, tenantId: t }) =>
        trx
          .selectFrom('memories')
          .select(['id', 'content', 'content_z', 'occurred_at', 'importance_score', 'tags'])
          .where('tenant_id', '=', t)
          .where('mind_id', '=', mindId)
          .where('memory_type', '=', 'episodic')
          .where('storage_location', '=', 'neocortex')
          .where('forgotten_at', 'is', null)
          .where(sql<boolean>`not (association_graph ? 'generalised_into')`)
          .orderBy('occurred_at')
          .orderBy('id')
          .limit(GENERALISE_BATCH)
          .execute(),
      );
      for (const cluster of clusterEpisodes(episodes as Episode[], config)) {
        const g = generaliseCluster(cluster, config);
        const summary = await this.summarise(g, cluster);
        if (await this.store(tenantId, mindId, g, summary, now)) made += 1;
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

  /** Inserts the semantic memory (unless its key exists) and links the episodes to it, in one transaction. */
  private store(tenantId: string, mindId: string, g: Generalisation, summary: { content: string; by: string }, now: Date): Promise<boolean> {
    return this.tenantDb.run(tenantId, async (tx) => {
      const config = await this.settings.forTenant(tenantId);
      const row = newMemoryRow(
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
      );
      const inserted = await this.memories.insertIfAbsent(tx, {
        ...row,
        // Generalised knowledge is long-term and cortical from the start (seed 000).
        layer: 'long_term',
        storage_location: 'neocortex',
        association_graph: JSON.stringify({ generalises: g.member_ids }),
      });
      const id = inserted?.id ?? (await this.memories.findByKeyForUpdate(tx, mindId, 'fact', g.key))?.id;
      if (!id) return false;
      if (inserted) await this.versions.record(tx, inserted, 'create', { type: 'system', id: null });
      await sql`
        update memories set association_graph = association_graph || jsonb_build_object('generalised_into', ${id}::text)
        where tenant_id = ${tx.tenantId} and id = any(${g.member_ids}::uuid[]) and not (association_graph ? 'generalised_into')`.execute(tx.trx);
      return inserted !== undefined;
    });
  }
}

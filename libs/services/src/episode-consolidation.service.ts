import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import { MemoriesRepository, MessagesRepository, newId, type TenantTx } from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { correctedLines, entryScore, episodeImportance, episodeMemory, lifeChange, replacedLines, repeatsMemory, subjectlessCorrection, withCorrectedLines, withReplacedLines, withoutSpeakers, type ConsolidationTrigger, type ImportanceResult, type LifecycleConfig, type SourcedStmEntry } from '@engram/memory';
import type { ConsolidationOutcome } from './conversation.types';
import { FactConsolidation } from './fact-consolidation.service';
import { HybridSearch } from './hybrid-search.service';
import type { MemoryScope } from './memory-scope';
import { MemoryWriter } from './memory-writer.service';

/** Memories compared with an entry for its association and for a near-duplicate. */
const SIMILAR_CANDIDATES = 10;
/** Memories looked through for what a correction or a change quotes (a mind may say "10" or "work" often). */
const QUOTED_CANDIDATES = 50;

/**
 * Short-term memory into long-term memory (seed 000 `consolidate`; docs/design.md §4.3), for the
 * conversation stream: an STM entry becomes an episodic memory through the one writer, or
 * reinforces the memory that already says it (near-duplicate integration). Runs inside the
 * caller's transaction, which holds the conversation's lock (ConversationStream).
 */
@Injectable()
export class EpisodeConsolidation {
  constructor(
    private readonly messages: MessagesRepository,
    private readonly memories: MemoriesRepository,
    private readonly writer: MemoryWriter,
    private readonly search: HybridSearch,
    private readonly facts: FactConsolidation,
    private readonly embedder: RequestEmbedder,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The mind's unexpired memories most like a text: hybrid search over full text, not an access,
   * and without counting statistics (the mind grows under this stream: counts taken now would be
   * stale for the searches that follow). An expired memory is no candidate: a fact said again after
   * its memory expired is a new memory, not a reinforcement of one that every read hides (a peer's
   * report, mem0 #7051, tried on Engram: the restated fact vanished into the expired memory).
   */
  async similar(tx: TenantTx, scope: MemoryScope, content: string, config: LifecycleConfig, limit = SIMILAR_CANDIDATES) {
    // Without the speakers: every episode names one, and "user" would match them all.
    const query = { q: (withoutSpeakers(content).trim() || content).slice(0, 1000), mode: 'any' as const, vector: null, filter: { activeAt: this.clock.now() }, limit };
    const hits = await this.search.search(tx, scope.mindId, query, config, { access: false, statistics: 'uncounted', associations: false });
    return hits.map((h) => h.row);
  }

  /**
   * Near-duplicate integration (docs/design.md §4.3), for an arriving message and for an entry
   * leaving STM alike: the mind's memories most like `content` ({@link similar}), and the one that
   * states the same thing (libs/memory `repeatsMemory`), reinforced for `messageIds` when there is one.
   * @param saidAt when `content` was (last) said: the memory reinforced is restated then (MemoryWriter `reinforce`)
   * @returns the candidates (an entry's association and `similar` links use them) and the memory reinforced, if any
   */
  async reinforceRepeated(tx: TenantTx, scope: MemoryScope, content: string, messageIds: readonly string[], importance: ImportanceResult, config: LifecycleConfig, saidAt: Date) {
    const candidates = await this.similar(tx, scope, content, config);
    const near = candidates.find((m) => repeatsMemory(content, m.content, config));
    if (near) await this.writer.reinforce(tx, near, [...messageIds], importance, this.clock.now(), config, saidAt);
    return { candidates, near };
  }

  /**
   * A message that corrects only a value ("Actually, it is 20mg now, not 10": libs/memory
   * `subjectlessCorrection`) is kept with the line it corrects, the latest said before it that
   * holds the old value, and what that line itself corrected (`correctedLines`): "(correcting: user: My doctor put me on atorvastatin
   * 10mg …)". Alone it shared no word with its subject, and a search for "atorvastatin" found only
   * the old dose (a newcomer's report); with it, both are found and, as variants of one statement,
   * the correction comes first (the newest fact wins). A change of home or work ("I moved to
   * Berlin", "I just started a new job at Globex") is kept likewise with the speaker's latest
   * statement of the same topic, `(previously: user: I live in Paris.)` (libs/memory
   * `lifeChange`, `replacedLines`), in a chunk too. A correction in a chunk is read line by line,
   * and a chunk may hold a correction and a change at once. What was said before the entry is
   * looked for in long-term memory and among `pending`, the entries of the conversation's STM not
   * consolidated yet: a chat posted at once, or faster than STM's time rules, evicted "Actually
   * it's 20mg, not 10mg." (chunked with a move) while "My doctor put me on sertraline 10mg" was
   * still in STM, so the correction quoted nothing and a search for the drug found only the old
   * dose (helper 36's). Any other entry: its content unchanged.
   */
  private async withCorrected(tx: TenantTx, scope: MemoryScope, entry: SourcedStmEntry, config: LifecycleConfig, pending: readonly SourcedStmEntry[]): Promise<string> {
    const unconsolidated = pending.filter((e) => e.id !== entry.id && e.entered_at.getTime() <= entry.entered_at.getTime()).map((e) => ({ content: e.content, occurred_at: e.entered_at }));
    const saidBefore = async (probes: string) => [
      ...(await this.similar(tx, scope, probes, config, QUOTED_CANDIDATES)).filter((m) => m.occurred_at.getTime() <= entry.entered_at.getTime()),
      ...unconsolidated,
    ];
    if (entry.message_ids.length === 1) {
      // One message, of one or more lines: read whole, sentence by sentence.
      const correction = subjectlessCorrection(withoutSpeakers(entry.content));
      if (correction) return withCorrectedLines(entry.content, correctedLines(await saidBefore(correction.probes.join(' ')), correction));
    }
    const corrected: string[] = [];
    let replaced: string[] | null = null;
    for (const line of entry.content.split('\n')) {
      const [, speaker, said] = /^([^:\n]{1,64}): (.*)$/.exec(line) ?? [];
      if (!speaker || !said) continue;
      const correction = entry.message_ids.length > 1 ? subjectlessCorrection(said) : null;
      if (correction) {
        for (const l of correctedLines(await saidBefore(correction.probes.join(' ')), correction)) if (!corrected.includes(l)) corrected.push(l);
        continue;
      }
      // A change of home or work, alone or in a chunk, is kept with the speaker's statement it replaces (libs/memory life-change.ts); the first one.
      const change = replaced === null ? lifeChange(said) : null;
      if (change) replaced = replacedLines(await saidBefore(change.probes), change.topic, speaker, said);
    }
    return withReplacedLines(withCorrectedLines(entry.content, corrected), replaced ?? []);
  }

  /**
   * STM → LTM (seed 000 `consolidate`): an existing memory of nearly the same words is reinforced
   * (MemoryWriter `reinforce`); otherwise a new episodic memory is written (libs/memory
   * `episodeMemory`: its compressed form, strength × 1.5, the messages as `source_refs`).
   * @param pending the conversation's STM entries not consolidated yet (still held, or leaving in the same pass): what a correction may quote
   */
  async consolidate(
    tx: TenantTx,
    scope: MemoryScope,
    conversationId: string,
    entry: SourcedStmEntry,
    trigger: ConsolidationTrigger,
    config: LifecycleConfig,
    pending: readonly SourcedStmEntry[] = [],
  ): Promise<ConsolidationOutcome> {
    const now = this.clock.now();
    const outcome = { stm_entry_id: entry.id, trigger, score: entryScore(entry, config), messages: entry.message_ids.length };
    const importance = episodeImportance(entry, trigger, config);
    const { candidates, near } = await this.reinforceRepeated(tx, scope, entry.content, entry.message_ids, importance, config, entry.last_rehearsed_at);
    if (near) return { ...outcome, memory_id: near.id, key: near.key, status: 'reinforced' };
    const content = await this.withCorrected(tx, scope, entry, config, pending);
    // A local embedder costs nothing here; a remote one is left to the backfill, outside this
    // transaction. The content as stored: a correction's vector holds what it corrects (helper 32's).
    const vector = this.embedder.local ? ((await this.embedder.tryEmbed([content])).vectors[0] ?? null) : null;
    const first = entry.message_ids[0];
    const position = first ? await this.messages.position(tx, scope.mindId, conversationId, first) : null;
    const speakers = entry.message_ids.length > 1 ? await this.messages.speakers(tx, scope.mindId, entry.message_ids) : undefined;
    const input = { ...episodeMemory({ ...entry, content }, { mindId: scope.mindId, conversationId, writer: scope.writer, trigger, score: outcome.score, similar: candidates.map((c) => c.id), now, importance, position, speakers }), id: newId() };
    const created = await this.writer.create(tx, input, config, scope.actor, { model: this.embedder.embedder.model, vector }, { consolidated: 'episode' });
    if (created) {
      const result: ConsolidationOutcome = { ...outcome, memory_id: created.id, key: created.key, status: 'created' };
      this.facts.remember(result, entry);
      return result;
    }
    // Consolidated before (an interrupted run repeated): that memory stands.
    const existing = await this.memories.findByKeyForUpdate(tx, scope.mindId, input.category, input.key);
    return { ...outcome, memory_id: existing?.id ?? input.id, key: input.key, status: 'reinforced' };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import { MessagesRepository, StmRepository, TenantDb, newId, type NewMessage, type TenantTx } from '@engram/db';
import { ImportanceScorer } from '@engram/llm';
import {
  advanceStm,
  associationStrength,
  attend,
  contentWords,
  enterStm,
  entryScore,
  immediateTriggers,
  type ImportanceResult,
  type LifecycleConfig,
  type SourcedStmEntry,
  stmContent,
  stmDecision,
  type StmMessage,
  wordSimilarity,
  withExplicitSaveRequest,
} from '@engram/memory';
import { EpisodeConsolidation } from './episode-consolidation.service';
import { LifecycleSettings } from './lifecycle-settings.service';
import type { MemoryScope } from './memory-scope';
import { FactConsolidation } from './fact-consolidation.service';
import { inContext, speakerOf } from './message-context';
import { MindAccess } from './mind-access';
import type { AppendResult, ConsolidationOutcome, IncomingMessage } from './conversation.types';

/** A system message is logged, never attended nor scored: no person said it (a re-sent prompt became a memory: mem0 #2239). */
const loggedOnly = (m: IncomingMessage): boolean => m.role === 'system';

const SCORING_BATCH = 8; // messages scored at once (the scorer may call an LLM)

/**
 * The conversation stream of seed 000 (docs/design.md §4): raw messages are stored as received
 * (committed before any scoring), then each is scored; those that pass attention enter the
 * conversation's short-term memory (STM), rehearsing an entry they repeat. STM holds
 * `stm.capacity` entries; time and triggers move entries to long-term memory (episodic memories
 * with the message ids as `source_refs`: EpisodeConsolidation), and a near-duplicate of an
 * existing memory (found by hybrid search) reinforces it instead of adding a copy. Messages of the past are processed on
 * their own event time. The rules are libs/memory's (`attend`, `enterStm`, `advanceStm`).
 */
@Injectable()
export class ConversationStream {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
    private readonly minds: MindAccess,
    private readonly messages: MessagesRepository,
    private readonly stm: StmRepository,
    private readonly episodes: EpisodeConsolidation,
    private readonly scorer: ImportanceScorer,
    private readonly facts: FactConsolidation,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Stores the messages, scores them, and runs them through STM in event-time order. @throws AppError 404 for a mind not in the tenant */
  async append(scope: MemoryScope, conversationId: string, sent: IncomingMessage[]): Promise<AppendResult> {
    const received = this.clock.now();
    // A client_id sent twice in one call counts once (the first; the API refuses two different
    // messages under one id, conversations.dto.ts).
    const ids = new Set<string>();
    const incoming = sent.filter((m) => m.client_id === undefined || (!ids.has(m.client_id) && ids.add(m.client_id)));
    const offered: NewMessage[] = incoming.map((m) => ({
      id: newId(),
      conversation_id: conversationId,
      client_id: m.client_id ?? null,
      role: m.role,
      speaker: m.speaker ?? null,
      content: m.content,
      metadata: m.metadata ?? {},
      occurred_at: m.occurred_at ? new Date(m.occurred_at) : received,
      received_at: received,
    }));
    const firstOffered = offered.reduce((t, r) => Math.min(t, r.occurred_at.getTime()), received.getTime());
    const { before, stored } = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      // What was said before this batch: the first message is scored in its context.
      const last = await this.messages.lastBefore(tx, scope.mindId, conversationId, new Date(firstOffered));
      return { before: last, stored: await this.messages.insert(tx, scope.mindId, offered) };
    });
    // Only what was stored goes on: a message the conversation held already was scored then.
    const rows = offered.filter((r) => stored.has(r.id));
    const sorted = offered.flatMap((row, i) => (stored.has(row.id) ? [{ row, message: incoming[i] as IncomingMessage }] : []));
    sorted.sort((a, b) => a.row.occurred_at.getTime() - b.row.occurred_at.getTime());
    const config = await this.settings.forTenant(scope.tenantId);
    const contexts = inContext(sorted, before);
    const scores = await this.scoreAll(contexts, config);
    const order = contexts.map((x, i) => ({ ...x, importance: scores[i] as ImportanceResult }));
    const appended = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      let buffer: SourcedStmEntry[] = await this.stm.list(tx, scope.mindId, conversationId);
      const result: AppendResult = {
        conversation_id: conversationId,
        message_ids: rows.map((r) => r.id),
        duplicates: sent.length - rows.length,
        ...{ attended: 0, rehearsed: 0, reinforced: [], below_attention: 0, discarded: 0, consolidated: [], stm_size: 0 },
        stm_capacity: config.stm.capacity,
      };
      let at = received;
      for (const { row, message, importance, answering } of order) {
        at = row.occurred_at.getTime() < received.getTime() ? row.occurred_at : received;
        buffer = await this.advance(tx, scope, conversationId, buffer, at, config, result);
        const step = loggedOnly(message) ? { buffer, entryId: null } : await this.attendTo(tx, scope, conversationId, buffer, { id: row.id, speaker: speakerOf(message), text: message.content, importance, answering }, at, config, result);
        if (loggedOnly(message)) result.below_attention += 1;
        buffer = step.buffer;
        const entryId = step.entryId;
        await this.messages.markProcessed(tx, row.id, { stm_entry_id: entryId, importance: importance.score, importance_source: importance.path, at: received });
      }
      buffer = await this.advance(tx, scope, conversationId, buffer, at, config, result);
      await this.stm.save(tx, scope.mindId, conversationId, buffer);
      result.stm_size = buffer.length;
      return result;
    });
    await this.facts.extract(scope, conversationId, appended.consolidated, config);
    return appended;
  }

  /**
   * One message through attention (libs/memory `attend`, `enterStm`): left out as chatter, a
   * rehearsal of the entry it repeats, or a new entry, whose entry may push out (and consolidate)
   * another. @returns the buffer after it and the entry it went to, if any
   */
  private async attendTo(
    tx: TenantTx,
    scope: MemoryScope,
    conversationId: string,
    buffer: SourcedStmEntry[],
    message: StmMessage,
    at: Date,
    config: LifecycleConfig,
    result: AppendResult,
  ): Promise<{ buffer: SourcedStmEntry[]; entryId: string | null }> {
    const seen = attend(buffer, message, at, config);
    if (seen.kind === 'below_attention') {
      result.below_attention += 1;
      return { buffer, entryId: null };
    }
    if (seen.kind === 'rehearsal') {
      result.rehearsed += 1;
      return { buffer: seen.buffer, entryId: seen.entryId };
    }
    const content = stmContent(message);
    const words = contentWords(content);
    // It repeats what long-term memory holds: rehearsal of that memory (seed 000), not a new entry.
    const { candidates, near } = await this.episodes.reinforceRepeated(tx, scope, content, [message.id], message.importance, config, at);
    if (near) {
      result.reinforced.push({ message_id: message.id, memory_id: near.id, key: near.key });
      return { buffer, entryId: null };
    }
    const entered = enterStm(buffer, message, this.association(words, buffer, candidates), at, config, newId);
    for (const out of entered.evicted) {
      if (out.consolidate) result.consolidated.push(await this.episodes.consolidate(tx, scope, conversationId, out.entry, 'capacity', config, [...entered.buffer, ...entered.evicted.map((e) => e.entry)]));
      else result.discarded += 1;
    }
    result.attended += 1;
    return { buffer: entered.buffer, entryId: entered.entry.id };
  }

  /**
   * The explicit save (seed 000 `explicit_save_command`): every entry of the conversation's STM
   * moves to long-term memory now, whatever its score. @throws AppError 404 for a mind not in the tenant
   */
  async consolidateAll(scope: MemoryScope, conversationId: string): Promise<ConsolidationOutcome[]> {
    const config = await this.settings.forTenant(scope.tenantId);
    const out = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      const consolidated: ConsolidationOutcome[] = [];
      const held = await this.stm.list(tx, scope.mindId, conversationId);
      for (const entry of held) consolidated.push(await this.episodes.consolidate(tx, scope, conversationId, entry, 'explicit_save', config, held));
      await this.stm.save(tx, scope.mindId, conversationId, []);
      return consolidated;
    });
    await this.facts.extract(scope, conversationId, out, config);
    return out;
  }

  /**
   * The conversation has ended (ours; the client knows, the service would wait for the sleep
   * cycle): the time rules applied as if it had then gone quiet for `consolidation.stm_max_seconds`
   * (30 min) after its newest entry, so that every entry leaves STM now as it would at its timeout
   * (seed 000: an entry with a trigger or a score above `consolidation.threshold` consolidates,
   * the rest is discarded). The same decisions the sleep cycle would take half an hour later,
   * taken at once; STM is empty afterwards, and a later message starts it again.
   * @returns what each entry became and how many were discarded
   * @throws AppError 404 for a mind not in the tenant
   */
  async end(scope: MemoryScope, conversationId: string): Promise<{ consolidated: ConsolidationOutcome[]; discarded: number }> {
    return this.applyTimeRules(scope, conversationId, 'require mind', (buffer, config) => {
      const newest = Math.max(...buffer.map((e) => e.entered_at.getTime()));
      return new Date(newest + config.consolidation.stm_max_seconds * 1000);
    });
  }

  /**
   * The sleep cycle for one conversation at `now` (docs/design.md §4): the time rules applied to
   * every entry. Idempotent: a second run at the same time finds nothing to do.
   */
  async sleepCycle(scope: MemoryScope, conversationId: string): Promise<{ consolidated: ConsolidationOutcome[]; discarded: number }> {
    return this.applyTimeRules(scope, conversationId, 'system', () => this.clock.now());
  }

  /** The time rules applied to the conversation's STM at the time `at` gives for it, in one unit of work; then the facts of what consolidated. */
  private async applyTimeRules(
    scope: MemoryScope,
    conversationId: string,
    caller: 'require mind' | 'system',
    at: (buffer: readonly SourcedStmEntry[], config: LifecycleConfig) => Date,
  ): Promise<{ consolidated: ConsolidationOutcome[]; discarded: number }> {
    const config = await this.settings.forTenant(scope.tenantId);
    const done = await this.tenantDb.run(scope.tenantId, async (tx) => {
      if (caller === 'require mind') await this.minds.require(tx, scope);
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      const result = { consolidated: [] as ConsolidationOutcome[], discarded: 0 };
      const before = await this.stm.list(tx, scope.mindId, conversationId);
      if (before.length === 0) return result;
      const after = await this.advance(tx, scope, conversationId, before, at(before, config), config, result);
      if (after.length !== before.length) await this.stm.save(tx, scope.mindId, conversationId, after);
      return result;
    });
    await this.facts.extract(scope, conversationId, done.consolidated, config);
    return done;
  }

  /** The conversation's STM as it stands, with each entry's score and what the rules say at `now`. @throws AppError 404 */
  async view(scope: MemoryScope, conversationId: string) {
    const config = await this.settings.forTenant(scope.tenantId);
    const now = this.clock.now();
    const entries = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.stm.list(tx, scope.mindId, conversationId);
    });
    return {
      conversation_id: conversationId,
      capacity: config.stm.capacity,
      as_of: now.toISOString(),
      entries: entries.map((e) => {
        const score = entryScore(e, config);
        const { position: _position, conversation_id: _conversation, ...fields } = e;
        return {
          ...fields,
          entered_at: e.entered_at.toISOString(),
          last_rehearsed_at: e.last_rehearsed_at.toISOString(),
          seconds_in_stm: Math.max(0, (now.getTime() - e.entered_at.getTime()) / 1000),
          consolidation_score: score,
          triggers: immediateTriggers(e, config),
          decision_now: stmDecision({ ...e, score }, now, config).action,
          chunk: e.chunk,
        };
      }),
    };
  }

  /** Scores the messages (the caller's importance when given), a few at a time, before any transaction holds a connection. */
  private async scoreAll(incoming: readonly { message: IncomingMessage; previous: { speaker: string | null; text: string } | null }[], config: LifecycleConfig): Promise<ImportanceResult[]> {
    const scores: ImportanceResult[] = [];
    for (let i = 0; i < incoming.length; i += SCORING_BATCH) {
      const batch = incoming.slice(i, i + SCORING_BATCH);
      scores.push(
        ...(await Promise.all(
          batch.map(({ message: m, previous }) =>
            m.importance !== undefined ? { score: m.importance, path: 'caller' as const } : loggedOnly(m) ? { score: 0, path: 'rules' as const } : this.scorer.score(m.content, { speaker: speakerOf(m), role: m.role, previous }, config).then((r) => withExplicitSaveRequest(r, m, config)),
          ),
        )),
      );
    }
    return scores;
  }

  /** The time rules at `at`: entries that consolidate (written now) or leave; the rest stay. */
  private async advance(
    tx: TenantTx,
    scope: MemoryScope,
    conversationId: string,
    buffer: SourcedStmEntry[],
    at: Date,
    config: LifecycleConfig,
    result: { consolidated: ConsolidationOutcome[]; discarded: number },
  ): Promise<SourcedStmEntry[]> {
    const step = advanceStm(buffer, at, config);
    // Every entry of the buffer was said, those the step discards too (helper 38's: at /end a
    // correction lost the line it quotes, discarded in the same pass).
    for (const { entry, trigger } of step.consolidate) result.consolidated.push(await this.episodes.consolidate(tx, scope, conversationId, entry, trigger, config, buffer));
    result.discarded += step.discarded;
    return step.kept;
  }

  /**
   * How strongly a new entry ties to what the mind already holds, 0..1: seed 000's association
   * strength by the graph's rule (libs/memory associationStrength, docs/design.md §6.8), over the
   * `similar_to` links the entry would get, weighed by word similarity (it has no vector yet) to
   * the STM entries and the mind's best matches.
   */
  private association(words: Set<string>, buffer: readonly SourcedStmEntry[], memories: readonly { content: string }[]): number {
    return associationStrength([...buffer.map((e) => wordSimilarity(words, e.content)), ...memories.map((m) => wordSimilarity(words, m.content))]);
  }
}

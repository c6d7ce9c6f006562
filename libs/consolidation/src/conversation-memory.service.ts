import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import {
  LifecycleSettings,
  MemoriesRepository,
  MemoryVersionsRepository,
  MessagesRepository,
  MindsRepository,
  StmRepository,
  TenantDb,
  newId,
  newMemoryRow,
  type Actor,
  type ImportanceSource,
  type TenantTx,
} from '@engram/db';
import { RequestEmbedder } from '@engram/embeddings';
import { ImportanceScorer } from '@engram/llm';
import {
  CONTENT_MAX_BYTES,
  admitToStm,
  contentWords,
  emotionalEncoding,
  entryScore,
  episodicPayload,
  findRepeated,
  immediateTriggers,
  passesAttention,
  provenanceOf,
  rehearse,
  stmDecision,
  utilitySignal,
  wordSimilarity,
  type ConsolidationTrigger,
  type ImportanceResult,
  type LifecycleConfig,
  type MemoryCategory,
  type StmEntry,
  type WriterKind,
} from '@engram/memory';

/** Whose conversation, and who is writing (a person or the mind's agent). */
export interface ConversationScope {
  tenantId: string;
  mindId: string;
  writer: WriterKind;
  actor: Actor;
}

/** A message as posted to a conversation. */
export interface IncomingMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  speaker?: string;
  content: string;
  occurred_at?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
}

/** What one consolidation did: a new episodic memory, or a near-duplicate reinforced. */
export interface ConsolidationOutcome {
  stm_entry_id: string;
  memory_id: string;
  key: string;
  trigger: ConsolidationTrigger;
  status: 'created' | 'reinforced';
  score: number;
  /** How many messages the entry held (a chunk holds several). */
  messages: number;
}

export interface AppendResult {
  conversation_id: string;
  message_ids: string[];
  attended: number;
  rehearsed: number;
  below_attention: number;
  discarded: number;
  consolidated: ConsolidationOutcome[];
  stm_size: number;
  stm_capacity: number;
}

/** The mind does not exist in the caller's tenant. */
export class MindNotFoundError extends Error {}

type Entry = StmEntry & { importance_source: ImportanceSource };

const SEARCH_CANDIDATES = 5;

/** Text cut to a memory's content limit (32 KiB of UTF-8) on a character boundary, marked with an ellipsis. */
export function fitContent(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= CONTENT_MAX_BYTES) return text;
  const chars = [...text];
  let bytes = 3; // the ellipsis
  let end = 0;
  while (end < chars.length && bytes + Buffer.byteLength(chars[end] as string, 'utf8') <= CONTENT_MAX_BYTES) bytes += Buffer.byteLength(chars[end++] as string, 'utf8');
  return `${chars.slice(0, end).join('')}…`;
}

/** Seed 002 category of an episode, read from its wording: preferences and identity; else a note. */
export function episodeCategory(content: string): MemoryCategory {
  if (/\b(i (really |truly )?(like|love|prefer|enjoy|hate|dislike|adore)|my favou?rite|좋아해|싫어해)\b/i.test(content)) return 'preference';
  if (/\b(my name is|i am an? |i'm an? |i work as|i live in|i'm from|i am from|제 이름은|저는 .+입니다)/i.test(content)) return 'identity';
  return 'note';
}

/**
 * The conversation stream of seed 000 (DESIGN §4): raw messages are stored as received, then
 * each is scored; those that pass attention enter the conversation's short-term memory (STM),
 * rehearsing an entry they repeat. STM holds `stm.capacity` entries; time and triggers move
 * entries to long-term memory (episodic memories in seed 000's shape, with the message ids as
 * `source_refs`), and a near-duplicate of an existing memory reinforces it instead of adding a
 * copy. Messages of the past are processed on their own event time.
 */
@Injectable()
export class ConversationMemory {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
    private readonly minds: MindsRepository,
    private readonly messages: MessagesRepository,
    private readonly stm: StmRepository,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly scorer: ImportanceScorer,
    private readonly embedder: RequestEmbedder,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Stores the messages (committed before any scoring), scores them, and runs them through STM
   * in event-time order. @throws MindNotFoundError
   */
  async append(scope: ConversationScope, conversationId: string, incoming: IncomingMessage[]): Promise<AppendResult> {
    const received = this.clock.now();
    const rows = incoming.map((m) => {
      const occurred = m.occurred_at ? new Date(m.occurred_at) : received;
      return {
        id: newId(),
        conversation_id: conversationId,
        role: m.role,
        speaker: m.speaker ?? null,
        content: m.content,
        metadata: m.metadata ?? {},
        occurred_at: occurred,
        received_at: received,
      };
    });
    await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.requireMind(tx, scope);
      await this.messages.insert(tx, scope.mindId, rows);
    });

    const config = await this.settings.forTenant(scope.tenantId);
    const scores: ImportanceResult[] = [];
    for (let i = 0; i < incoming.length; i += 8) {
      scores.push(
        ...(await Promise.all(
          incoming.slice(i, i + 8).map((m) =>
            m.importance !== undefined ? Promise.resolve<ImportanceResult>({ score: m.importance, path: 'caller' }) : this.scorer.score(m.content, {}, config),
          ),
        )),
      );
    }

    const order = rows.map((row, i) => ({ row, message: incoming[i] as IncomingMessage, importance: scores[i] as ImportanceResult }));
    order.sort((a, b) => a.row.occurred_at.getTime() - b.row.occurred_at.getTime());
    return this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      let buffer: Entry[] = await this.stm.list(tx, scope.mindId, conversationId);
      const result: AppendResult = {
        conversation_id: conversationId,
        message_ids: rows.map((r) => r.id),
        attended: 0,
        rehearsed: 0,
        below_attention: 0,
        discarded: 0,
        consolidated: [],
        stm_size: 0,
        stm_capacity: config.stm.capacity,
      };
      let at = received;
      for (const { row, message, importance } of order) {
        at = row.occurred_at.getTime() < received.getTime() ? row.occurred_at : received;
        buffer = await this.advance(tx, scope, conversationId, buffer, at, config, result);
        const speaker = message.speaker ?? message.role;
        const content = `${speaker}: ${message.content}`;
        const emotion = emotionalEncoding(message.content).weight;
        const utility = utilitySignal(message.content);
        let entryId: string | null = null;
        const attention = { contentWords: contentWords(message.content).size, importance: importance.score, emotion, utility };
        if (!passesAttention(attention, config)) {
          result.below_attention += 1;
        } else {
          const repeated = findRepeated(buffer, content, config);
          if (repeated) {
            buffer = buffer.map((e) =>
              e.id === repeated.id
                ? {
                    ...rehearse(e, row.id, at, config, { importance: importance.score, emotion }),
                    importance_source: importance.score > e.importance ? importance.path : e.importance_source,
                  }
                : e,
            );
            entryId = repeated.id;
            result.rehearsed += 1;
          } else {
            const entry: Entry = {
              id: newId(),
              content,
              speaker,
              message_ids: [row.id],
              importance: importance.score,
              importance_source: importance.path,
              emotion,
              association: await this.association(tx, scope, content, buffer),
              utility,
              mentions: 1,
              rehearsal_count: 0,
              decay_factor: config.stm.initial_decay_factor,
              entered_at: at,
              last_rehearsed_at: at,
              chunk: null,
            };
            const admitted = admitToStm(buffer, entry, at, config, newId);
            const sources = new Map(buffer.map((e) => [e.id, e]));
            // A chunk made on the way scores like its most important item.
            buffer = admitted.buffer.map((e) => {
              if ('importance_source' in e) return e as Entry;
              const items = (e.chunk?.items ?? []).map((id) => sources.get(id)).filter((x): x is Entry => x !== undefined);
              const top = items.reduce<Entry | undefined>((best, x) => (!best || x.importance > best.importance ? x : best), undefined);
              return { ...e, importance_source: top?.importance_source ?? 'rules' };
            });
            for (const out of admitted.evicted) {
              if (out.consolidate) {
                result.consolidated.push(await this.consolidate(tx, scope, conversationId, out.entry as Entry, 'capacity', config));
              } else {
                result.discarded += 1;
              }
            }
            entryId = entry.id;
            result.attended += 1;
          }
        }
        await this.messages.markProcessed(tx, row.id, { stm_entry_id: entryId, importance: importance.score, importance_source: importance.path, at: received });
      }
      buffer = await this.advance(tx, scope, conversationId, buffer, at, config, result);
      await this.stm.save(tx, scope.mindId, conversationId, buffer);
      result.stm_size = buffer.length;
      return result;
    });
  }

  /**
   * The explicit save (seed 000 `explicit_save_command`): every entry of the conversation's STM
   * moves to long-term memory now, whatever its score. @throws MindNotFoundError
   */
  async consolidateAll(scope: ConversationScope, conversationId: string): Promise<ConsolidationOutcome[]> {
    const config = await this.settings.forTenant(scope.tenantId);
    return this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.requireMind(tx, scope);
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      const buffer = await this.stm.list(tx, scope.mindId, conversationId);
      const out: ConsolidationOutcome[] = [];
      for (const entry of buffer) out.push(await this.consolidate(tx, scope, conversationId, entry, 'explicit_save', config));
      await this.stm.save(tx, scope.mindId, conversationId, []);
      return out;
    });
  }

  /**
   * The sleep cycle for one conversation at `now` (DESIGN §4): the time rules applied to every
   * entry. Idempotent: a second run at the same time finds nothing to do.
   */
  async sleepCycle(scope: ConversationScope, conversationId: string): Promise<{ consolidated: ConsolidationOutcome[]; discarded: number }> {
    const config = await this.settings.forTenant(scope.tenantId);
    const now = this.clock.now();
    return this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.stm.lockConversation(tx, scope.mindId, conversationId);
      const result = { consolidated: [] as ConsolidationOutcome[], discarded: 0 };
      const before = await this.stm.list(tx, scope.mindId, conversationId);
      const after = await this.advance(tx, scope, conversationId, before, now, config, result);
      if (after.length !== before.length) await this.stm.save(tx, scope.mindId, conversationId, after);
      return result;
    });
  }

  /** The conversation's STM as it stands, with each entry's score and what the rules say at `now`. */
  async view(scope: ConversationScope, conversationId: string) {
    const config = await this.settings.forTenant(scope.tenantId);
    const now = this.clock.now();
    const entries = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.requireMind(tx, scope);
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

  private async requireMind(tx: TenantTx, scope: ConversationScope): Promise<void> {
    if (!(await this.minds.findById(tx, scope.mindId))) throw new MindNotFoundError('mind not found');
  }

  /** The time rules at `at`: entries that consolidate or leave; the rest stay. */
  private async advance(
    tx: TenantTx,
    scope: ConversationScope,
    conversationId: string,
    buffer: Entry[],
    at: Date,
    config: LifecycleConfig,
    result: { consolidated: ConsolidationOutcome[]; discarded: number },
  ): Promise<Entry[]> {
    const kept: Entry[] = [];
    for (const entry of buffer) {
      const decision = stmDecision({ ...entry, score: entryScore(entry, config) }, at, config);
      if (decision.action === 'consolidate') {
        result.consolidated.push(await this.consolidate(tx, scope, conversationId, entry, decision.trigger, config));
      } else if (decision.action === 'discard') {
        result.discarded += 1;
      } else {
        kept.push(entry);
      }
    }
    return kept;
  }

  /** How strongly a new entry ties to what the mind already holds: its closest STM entry or memory, 0..1. */
  private async association(tx: TenantTx, scope: ConversationScope, content: string, buffer: readonly Entry[]): Promise<number> {
    const words = contentWords(content);
    let best = 0;
    for (const e of buffer) best = Math.max(best, wordSimilarity(words, e.content));
    const hits = await this.memories.search(tx, scope.mindId, content.slice(0, 1000), 'any', {}, SEARCH_CANDIDATES);
    for (const h of hits) best = Math.max(best, wordSimilarity(words, h.content));
    return best;
  }

  /**
   * STM → LTM (seed 000 `consolidate`): an existing memory of nearly the same words is reinforced
   * (an access, and the messages join its `source_refs`); otherwise a new episodic memory is
   * written with its compressed form, strength ×1.5 (synaptic consolidation) and the messages
   * as `source_refs`.
   */
  private async consolidate(
    tx: TenantTx,
    scope: ConversationScope,
    conversationId: string,
    entry: Entry,
    trigger: ConsolidationTrigger,
    config: LifecycleConfig,
  ): Promise<ConsolidationOutcome> {
    const score = entryScore(entry, config);
    const words = contentWords(entry.content);
    const candidates = await this.memories.search(tx, scope.mindId, entry.content.slice(0, 1000), 'any', {}, SEARCH_CANDIDATES);
    const near = candidates.find((m) => wordSimilarity(words, m.content) >= config.consolidation.near_duplicate_similarity);
    if (near) {
      await this.memories.recordAccess(tx, scope.mindId, [near.id], this.clock.now(), config, { returning: false });
      const refs = [...new Set([...near.source_refs, ...entry.message_ids])].slice(-100);
      await this.memories.update(tx, scope.mindId, near.id, { source_refs: refs });
      return { stm_entry_id: entry.id, memory_id: near.id, key: near.key, trigger, status: 'reinforced', score, messages: entry.message_ids.length };
    }
    // A local embedder costs nothing here; a remote one is left to the backfill, outside this transaction.
    const vector = this.embedder.local ? ((await this.embedder.tryEmbed([entry.content])).vectors[0] ?? null) : null;
    const row = newMemoryRow(
      {
        mindId: scope.mindId,
        category: episodeCategory(entry.content),
        key: `episode_${entry.id.replace(/-/g, '')}`,
        // A speaker's name can push a 32 KiB message past a memory's limit: the raw message stays
        // in the log (source_refs) whole.
        content: fitContent(entry.content),
        tags: entry.speaker ? [entry.speaker.replace(/,/g, ' ').slice(0, 64)] : [],
        provenance: provenanceOf(scope.writer, undefined),
        occurredAt: entry.entered_at,
        now: this.clock.now(),
        memoryType: 'episodic',
        sourceRefs: entry.message_ids,
        temporalContext: `conversation ${conversationId}`.slice(0, 255),
        payload: episodicPayload({
          content: entry.content,
          occurredAt: entry.entered_at,
          conversationId,
          speakers: entry.speaker ? [entry.speaker] : [],
          importance: entry.importance,
          sequencePosition: null,
          trigger,
          similarEvents: candidates.slice(0, 3).map((c) => c.id),
          semanticLinks: [...words].slice(0, 10),
        }) as unknown as Record<string, unknown>,
        importance: { score: entry.importance, path: entry.importance_source },
        synaptic: true,
        consolidationScore: score,
        embedding: { model: this.embedder.embedder.model, vector },
      },
      config,
    );
    const inserted = await this.memories.insertIfAbsent(tx, row);
    if (!inserted) {
      // Consolidated before (an interrupted run repeated): that memory stands.
      const existing = await this.memories.findByKeyForUpdate(tx, scope.mindId, row.category, row.key);
      return { stm_entry_id: entry.id, memory_id: existing?.id ?? row.id, key: row.key, trigger, status: 'reinforced', score, messages: entry.message_ids.length };
    }
    await this.versions.record(tx, inserted, 'create', scope.actor);
    return { stm_entry_id: entry.id, memory_id: inserted.id, key: inserted.key, trigger, status: 'created', score, messages: entry.message_ids.length };
  }
}

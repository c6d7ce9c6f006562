import { CONTENT_MAX_BYTES, TAGS_MAX, type MemoryCategory } from '../memory.constants';
import { provenanceOf, type WriterKind } from '../provenance';
import type { NewMemoryInput } from '../write/new-memory';
import type { ConsolidationTrigger } from './consolidation';
import type { ImportanceResult } from './importance';
import { episodicPayload } from './episodic';
import { givesInstruction } from './remember-request';
import { contentWords } from './similarity';
import { withoutSpeakers } from './stm';
import type { SourcedStmEntry } from './stm-step';
import { cutUnits } from '../visible-text';

/** Text cut to a memory's content limit (32 KiB of UTF-8) on a character boundary, marked with an ellipsis. */
export function fitContent(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= CONTENT_MAX_BYTES) return text;
  const chars = [...text];
  let bytes = 3; // the ellipsis
  let end = 0;
  while (end < chars.length && bytes + Buffer.byteLength(chars[end] as string, 'utf8') <= CONTENT_MAX_BYTES) bytes += Buffer.byteLength(chars[end++] as string, 'utf8');
  return `${chars.slice(0, end).join('')}…`;
}

/**
 * Seed 002 category of an episode, read from its wording: preferences and identity; else a note.
 * An assistant's or a tool's own words ("I am an AI assistant", "I love helping") are no one's
 * identity nor taste the mind keeps: a note (a tester's find: they were filed as the user's identity).
 * A standing instruction to the assistant is a preference.
 */
export function episodeCategory(content: string, speaker: string | null = null): MemoryCategory {
  if (speaker === 'assistant' || speaker === 'tool') return 'note';
  // A standing instruction ("From now on, reply in German") is how the person wants to be answered.
  if (withoutSpeakers(content).split('\n').some(givesInstruction)) return 'preference';
  if (/\b(i (really |truly )?(like|love|prefer|enjoy|hate|dislike|adore)|my favou?rite|좋아해|싫어해)\b/i.test(content)) return 'preference';
  if (/\b(my name is|i am an? |i'm an? |i work as|i live in|i'm from|i am from|제 이름은|저는 .+입니다)/i.test(content)) return 'identity';
  return 'note';
}

/** The key of the episodic memory an STM entry consolidates into: from the entry's id, so a repeated consolidation finds it. */
export function episodeKey(entryId: string): string {
  return `episode_${entryId.replace(/-/g, '')}`;
}

/**
 * The temporal context of what a conversation's stream stores (seed 000 temporal_context): its
 * episodes and the facts an LLM extracts from them share it, within the column's 255 characters.
 */
export function conversationContext(conversationId: string): string {
  return cutUnits(`conversation ${conversationId}`, 255);
}

/**
 * The episodic memory an STM entry consolidates into (seed 000 `consolidate`): its compressed
 * form in seed 000's payload shape, the messages it holds as `source_refs`, its speaker as a
 * tag, strength × the synaptic factor, dated by the entry's event time, its life starting at `ctx.now`.
 *
 * @param ctx.similar ids of the mind's memories most like it (its `similar_events`)
 * @param ctx.importance its importance when not the entry's (consolidation `episodeImportance`)
 * @param ctx.position its first message's place in the conversation (0 for the first message):
 *   its `temporal_position` and seed 000 `sequence_position`, so that consecutive episodes of a
 *   conversation are linked precedes / follows (docs/design.md §6.8); null when unknown
 */
export function episodeMemory(
  entry: SourcedStmEntry,
  ctx: { mindId: string; conversationId: string; writer: WriterKind; trigger: ConsolidationTrigger; score: number; similar: readonly string[]; now: Date; importance?: ImportanceResult; position?: number | null; speakers?: readonly string[] },
): Omit<NewMemoryInput, 'id'> {
  return {
    mindId: ctx.mindId,
    category: episodeCategory(entry.content, entry.speaker),
    key: episodeKey(entry.id),
    // A speaker's name can push a 32 KiB message past a memory's limit: the raw message stays
    // in the log (source_refs) whole.
    content: fitContent(entry.content),
    // Who said it; an entry of several messages is tagged with each of their speakers (untagged, a
    // user's answer chunked with an assistant's line was missing from `tag=user` when a chat came
    // at once: helper 36's; read from the messages, not the lines: a line "Drinks: lemonade" of a
    // message is no speaker, helper 38's).
    tags: (ctx.speakers ?? (entry.speaker ? [entry.speaker] : [])).slice(0, TAGS_MAX).map((s) => cutUnits(s.replace(/,/g, ' '), 64)),
    provenance: provenanceOf(ctx.writer, undefined),
    occurredAt: entry.entered_at,
    // Said again while in STM: the repetition is the entry's latest statement (the newest fact wins).
    restatedAt: entry.rehearsal_count > 0 && entry.last_rehearsed_at.getTime() > entry.entered_at.getTime() ? entry.last_rehearsed_at : null,
    now: ctx.now,
    memoryType: 'episodic',
    // The newest 100 (a memory's limit): a chunk rehearsed many times holds more; the log keeps them all.
    sourceRefs: entry.message_ids.slice(-100),
    temporalContext: conversationContext(ctx.conversationId),
    temporalPosition: ctx.position ?? null,
    payload: episodicPayload({
      content: entry.content,
      occurredAt: entry.entered_at,
      conversationId: ctx.conversationId,
      speakers: entry.speaker ? [entry.speaker] : [],
      importance: ctx.importance?.score ?? entry.importance,
      sequencePosition: ctx.position ?? null,
      trigger: ctx.trigger,
      similarEvents: ctx.similar.slice(0, 3),
      semanticLinks: [...contentWords(entry.content)].slice(0, 10),
    }) as unknown as Record<string, unknown>,
    importance: ctx.importance ?? { score: entry.importance, path: entry.importance_source },
    synaptic: true,
    consolidationScore: ctx.score,
  };
}

import { questionLine } from './answer';
import { passesAttention, stmDecision, utilitySignal, type ConsolidationTrigger } from './consolidation';
import { emotionalEncoding } from './emotion';
import { factSignals } from './facts';
import type { ImportancePath, ImportanceResult } from './importance';
import type { LifecycleConfig } from './lifecycle-config';
import { contentWords } from './similarity';
import { admitToStm, entryScore, findRepeated, rehearse, type StmEntry } from './stm';

/** An STM entry with the path that scored its importance (kept on the memory it consolidates into). */
export type SourcedStmEntry = StmEntry & { importance_source: ImportancePath };

/** A message as short-term memory sees it (seed 000 sensory register → STM). */
export interface StmMessage {
  id: string;
  /** Who said it: the speaker's name, else the message's role. */
  speaker: string;
  /** The message's own text (without the speaker). */
  text: string;
  importance: ImportanceResult;
  /** Emotional weight 0..1 when the caller has it; else {@link messageEmotion} of the text. */
  emotion?: number;
  /** The question it answers when it says nothing without it (facts.ts `answersElliptically`): kept with it. */
  answering?: { id: string; speaker: string; text: string } | null;
}

/** What the time rules do to a buffer at an instant: who stays, who consolidates (and why), how many leave. */
export interface StmAdvance {
  kept: SourcedStmEntry[];
  consolidate: { entry: SourcedStmEntry; trigger: ConsolidationTrigger }[];
  discarded: number;
}

/** The time rules of seed 000 (docs/design.md §4; libs/memory `stmDecision`) applied to every entry at `at`. */
export function advanceStm(buffer: readonly SourcedStmEntry[], at: Date, config: LifecycleConfig): StmAdvance {
  const out: StmAdvance = { kept: [], consolidate: [], discarded: 0 };
  for (const entry of buffer) {
    const decision = stmDecision({ ...entry, score: entryScore(entry, config) }, at, config);
    if (decision.action === 'consolidate') out.consolidate.push({ entry, trigger: decision.trigger });
    else if (decision.action === 'discard') out.discarded += 1;
    else out.kept.push(entry);
  }
  return out;
}

/**
 * The stored form of a message in STM: `<speaker>: <text>`, after the line of the question it
 * answers when it says nothing without it ("assistant: What is your sister's name?\nuser: Anna.":
 * libs/memory answer.ts), so that a search for "sister" finds it and two answers "Anna." to two
 * questions are two facts, not one repeated.
 */
export function stmContent(message: Pick<StmMessage, 'speaker' | 'text' | 'answering'>): string {
  const said = `${message.speaker}: ${message.text}`;
  return message.answering ? `${questionLine(message.answering)}\n${said}` : said;
}

/**
 * A message's emotional weight in STM, 0..1: the lexical estimate (libs/memory `emotionalEncoding`,
 * seed 000 emotional tagging) × `stm.emotion_scale` (0.8..1), and × `stm.reaction_emotion` when
 * the message is a mere reaction or pleasantry (fact signal `reaction`): the lexicon reads "Wow, that's
 * amazing!" as strongly emotional, and without this every friendly reply crossed the 0.8 emotion
 * trigger into long-term memory (ours; tuned by bench/tune-conversation.ts).
 */
export function messageEmotion(text: string, config: LifecycleConfig): number {
  const lexical = emotionalEncoding(text).weight;
  const reaction = config.stm.reaction_emotion < 1 && factSignals(text).reaction === 1;
  return lexical * config.stm.emotion_scale * (reaction ? config.stm.reaction_emotion : 1);
}

/**
 * What attention makes of a message (seed 000): `below_attention` (chatter: too few content
 * words and nothing salient, `passesAttention`), a `rehearsal` of the entry it repeats
 * (`findRepeated`, then `rehearse`; a repeat scored higher lifts the entry's importance and its
 * source), or `new`: it enters STM through {@link enterStm} once its association is known.
 */
export function attend(
  buffer: readonly SourcedStmEntry[],
  message: StmMessage,
  at: Date,
  config: LifecycleConfig,
): { kind: 'below_attention' } | { kind: 'rehearsal'; buffer: SourcedStmEntry[]; entryId: string } | { kind: 'new' } {
  const emotion = message.emotion ?? messageEmotion(message.text, config);
  const attention = { contentWords: contentWords(message.text).size, importance: message.importance.score, emotion, utility: utilitySignal(message.text) };
  if (!passesAttention(attention, config)) return { kind: 'below_attention' };
  const repeated = findRepeated(buffer, stmContent(message), config);
  if (!repeated) return { kind: 'new' };
  const importance = message.importance;
  return {
    kind: 'rehearsal',
    entryId: repeated.id,
    buffer: buffer.map((e) =>
      e.id === repeated.id
        ? { ...rehearse(e, message.id, at, config, { importance: importance.score, emotion }), importance_source: importance.score > e.importance ? importance.path : e.importance_source }
        : e,
    ),
  };
}

/**
 * A new entry enters STM (seed 000 `add_memory`, `admitToStm`): a full buffer chunks or pushes
 * out its weakest entry, which consolidates on the way out when it qualifies. A chunk made on
 * the way takes the importance source of its most important item.
 *
 * @param association 0..1, how strongly the message ties to what the mind holds (the caller searches)
 * @param newId a fresh id for the entry and for each chunk made
 */
export function enterStm(
  buffer: readonly SourcedStmEntry[],
  message: StmMessage,
  association: number,
  at: Date,
  config: LifecycleConfig,
  newId: () => string,
): { buffer: SourcedStmEntry[]; entry: SourcedStmEntry; evicted: { entry: SourcedStmEntry; consolidate: boolean }[] } {
  const entry: SourcedStmEntry = {
    id: newId(),
    content: stmContent(message),
    speaker: message.speaker,
    // The question's message too: the memory holds its words.
    message_ids: message.answering ? [message.answering.id, message.id] : [message.id],
    importance: message.importance.score,
    importance_source: message.importance.path,
    emotion: message.emotion ?? messageEmotion(message.text, config),
    association,
    utility: utilitySignal(message.text),
    mentions: 1,
    rehearsal_count: 0,
    decay_factor: config.stm.initial_decay_factor,
    entered_at: at,
    last_rehearsed_at: at,
    chunk: null,
  };
  const admitted = admitToStm(buffer, entry, at, config, newId);
  const sources = new Map(buffer.map((e) => [e.id, e]));
  const sourced = (e: StmEntry): SourcedStmEntry => {
    if ('importance_source' in e) return e as SourcedStmEntry;
    const items = (e.chunk?.items ?? []).map((id) => sources.get(id)).filter((x): x is SourcedStmEntry => x !== undefined);
    const top = items.reduce<SourcedStmEntry | undefined>((best, x) => (!best || x.importance > best.importance ? x : best), undefined);
    return { ...e, importance_source: top?.importance_source ?? 'rules' };
  };
  return { buffer: admitted.buffer.map(sourced), entry, evicted: admitted.evicted.map((out) => ({ entry: sourced(out.entry), consolidate: out.consolidate })) };
}

import { CONTENT_MAX_BYTES } from '../memory.constants';
import { quotedLine } from './correction';
import { consolidationScore, immediateTriggers, repetitionSignal } from './consolidation';
import type { LifecycleConfig } from './lifecycle-config';
import { contentWords, sameStatement, wordSimilarity } from './similarity';

/** One entry of a conversation's short-term memory (seed 000 `stm_entry`). */
export interface StmEntry {
  id: string;
  content: string;
  speaker: string | null;
  /** The inbound messages it holds (becomes `source_refs` on consolidation). */
  message_ids: string[];
  importance: number;
  emotion: number;
  association: number;
  utility: number;
  /** How many times it was mentioned (1 when it entered). */
  mentions: number;
  rehearsal_count: number;
  /** Activation kept per minute without rehearsal (seed 000: starts at 0.85, ×1.1 per rehearsal). */
  decay_factor: number;
  entered_at: Date;
  last_rehearsed_at: Date;
  /** Set when this entry is a chunk of consecutive entries (seed 000 `chunking`). */
  chunk: { items: string[]; pattern: string } | null;
}

/** The consolidation score of an entry (seed 000 weights). */
export function entryScore(entry: StmEntry, config: LifecycleConfig): number {
  return consolidationScore(
    {
      repetition: repetitionSignal(entry.mentions, config),
      importance: entry.importance,
      emotion: entry.emotion,
      association: entry.association,
      utility: entry.utility,
    },
    config,
  );
}

/** Activation now: `decay_factor ^ minutes since the last rehearsal` (1 right after it). */
export function activation(entry: StmEntry, now: Date): number {
  const minutes = Math.max(0, now.getTime() - entry.last_rehearsed_at.getTime()) / 60_000;
  return entry.decay_factor ** minutes;
}

/** How firmly an entry holds its place: its score × its activation. The weakest leaves first. */
export function entryStrength(entry: StmEntry, now: Date, config: LifecycleConfig): number {
  return entryScore(entry, config) * activation(entry, now);
}

/**
 * The entry that a new mention repeats (content-word similarity ≥ the near-duplicate threshold);
 * a chunk is compared item by item (one line each), so chunked entries can still be rehearsed.
 */
export function findRepeated(buffer: readonly StmEntry[], content: string, config: LifecycleConfig): StmEntry | undefined {
  const words = contentWords(content);
  if (words.size === 0) return undefined;
  let best: StmEntry | undefined;
  let bestSimilarity = config.consolidation.near_duplicate_similarity;
  for (const entry of buffer) {
    const parts = entry.chunk ? entry.content.split('\n') : [entry.content];
    for (const part of parts) {
      const s = wordSimilarity(words, part);
      // Similar words but a value changed ("... in Boston" / "... in Denver") is a new fact, not a repeat.
      if (s >= bestSimilarity && sameStatement(content, part, 0)) {
        best = entry;
        bestSimilarity = s;
      }
    }
  }
  return best;
}

/**
 * Seed 000 `rehearsal_loop`: rehearsal_count+1, decay factor ×1.1 (kept below 1), one more
 * mention; a repeat that matters more (its importance or emotion) lifts the entry's.
 */
export function rehearse(entry: StmEntry, messageId: string, now: Date, config: LifecycleConfig, repeat?: { importance: number; emotion: number }): StmEntry {
  return {
    ...entry,
    importance: Math.max(entry.importance, repeat?.importance ?? 0),
    emotion: Math.max(entry.emotion, repeat?.emotion ?? 0),
    mentions: entry.mentions + 1,
    rehearsal_count: entry.rehearsal_count + 1,
    decay_factor: Math.min(0.99, entry.decay_factor * config.stm.rehearsal_factor),
    last_rehearsed_at: now,
    message_ids: entry.message_ids.includes(messageId) ? entry.message_ids : [...entry.message_ids, messageId],
  };
}

/** The `<speaker>: ` that starts each line of an entry's or an episode's text. */
const SPEAKER_PREFIX = /^[^:\n]{1,64}:\s/gm;

/** A text without the `<speaker>: ` that starts each of its lines (an entry's or an episode's). */
export function withoutSpeakers(text: string): string {
  return text.replace(SPEAKER_PREFIX, '');
}

/**
 * True when an STM entry repeats what a memory holds (near-duplicate integration, docs/design.md
 * §4.3): libs/memory `sameStatement`, on the entry's text as it is when the memory names its
 * speakers too (an episode), else without them (a keyed memory states the fact itself: "I have
 * two kids").
 */
export function repeatsMemory(entryText: string, memory: string, config: LifecycleConfig): boolean {
  // What the memory quotes of others is not what it says: "I moved to Berlin." said again repeats
  // "I moved to Berlin.\n(previously: user: I live in Paris.)" (helper 35's: a copy quoting itself).
  const own = memory.split('\n').filter((l) => quotedLine(l) === null).join('\n');
  const namesSpeakers = new RegExp(SPEAKER_PREFIX.source).test(own);
  return sameStatement(namesSpeakers ? entryText : withoutSpeakers(entryText), own, config.consolidation.near_duplicate_similarity);
}


/** What an entry says, without its speakers (a name shared by every line of one speaker is no topic). */
function saidIn(entry: StmEntry): string {
  return withoutSpeakers(entry.content);
}

/**
 * What two consecutive entries have in common, if enough to chunk them: two or more shared
 * content words (of 4+ letters), or one from the same speaker. A shared speaker alone is not a
 * pattern (one person talks about many things).
 */
function sharedPattern(a: StmEntry, b: StmEntry): string | null {
  const x = contentWords(saidIn(a));
  const shared = [...contentWords(saidIn(b))].filter((w) => x.has(w) && w.length > 3);
  if (shared.length >= 2 || (shared.length === 1 && a.speaker !== null && a.speaker === b.speaker)) {
    return `topic:${shared.slice(0, 3).join(',')}`;
  }
  return null;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Seed 000 `chunking`: the longest run (2 to 5) of consecutive, unchunked entries each sharing a
 * topic with the next (see `sharedPattern`), and fitting one memory's 32 KiB together, becomes one
 * chunk entry, freeing places. The chunk keeps the pattern of its first pair and holds the items'
 * text, one per line; its signals are the strongest of its items.
 *
 * @returns the buffer with the chunk in place of its items, or `undefined` when nothing chunks.
 */
export function chunkBuffer(buffer: readonly StmEntry[], newId: string, config: LifecycleConfig): StmEntry[] | undefined {
  let best: { start: number; length: number; pattern: string } | undefined;
  for (let start = 0; start < buffer.length - 1; start++) {
    const first = buffer[start] as StmEntry;
    if (first.chunk) continue;
    const pattern = sharedPattern(first, buffer[start + 1] as StmEntry);
    if (!pattern) continue;
    // A chunk becomes one memory: it must fit a memory's content limit.
    let size = bytes(first.content) + 1 + bytes((buffer[start + 1] as StmEntry).content);
    if (size > CONTENT_MAX_BYTES) continue;
    let length = 2;
    while (
      length < config.stm.chunk_max_items &&
      start + length < buffer.length &&
      !(buffer[start + length] as StmEntry).chunk &&
      sharedPattern(buffer[start + length - 1] as StmEntry, buffer[start + length] as StmEntry) !== null &&
      size + 1 + bytes((buffer[start + length] as StmEntry).content) <= CONTENT_MAX_BYTES
    ) {
      size += 1 + bytes((buffer[start + length] as StmEntry).content);
      length += 1;
    }
    if (!(buffer[start + 1] as StmEntry).chunk && (!best || length > best.length)) best = { start, length, pattern };
  }
  if (!best) return undefined;
  const items = buffer.slice(best.start, best.start + best.length);
  const chunk: StmEntry = {
    id: newId,
    content: withoutRepeatedLines(items.map((i) => i.content)),
    speaker: items.every((i) => i.speaker === items[0]?.speaker) ? (items[0]?.speaker ?? null) : null,
    message_ids: [...new Set(items.flatMap((i) => i.message_ids))],
    importance: Math.max(...items.map((i) => i.importance)),
    emotion: Math.max(...items.map((i) => i.emotion)),
    association: Math.max(...items.map((i) => i.association)),
    utility: Math.max(...items.map((i) => i.utility)),
    mentions: Math.max(...items.map((i) => i.mentions)),
    rehearsal_count: items.reduce((s, i) => s + i.rehearsal_count, 0),
    decay_factor: Math.max(...items.map((i) => i.decay_factor)),
    entered_at: new Date(Math.min(...items.map((i) => i.entered_at.getTime()))),
    last_rehearsed_at: new Date(Math.max(...items.map((i) => i.last_rehearsed_at.getTime()))),
    chunk: { items: items.map((i) => i.id), pattern: best.pattern },
  };
  return [...buffer.slice(0, best.start), chunk, ...buffer.slice(best.start + best.length)];
}

/**
 * Entries' texts as one, a line left out where it repeats the line just before it: an answer's
 * entry starts with the question it answers (`stmContent`), which the entry before it may hold
 * (a newcomer's chunk read "assistant: …Where do you live?" twice). A quoted question cut to its
 * end (`…<end>`) repeats the line it ends.
 */
function withoutRepeatedLines(contents: readonly string[]): string {
  const lines: string[] = [];
  for (const line of contents.join('\n').split('\n')) {
    const before = lines[lines.length - 1];
    const cut = /^([^:\n]{1,64}: )…(.+)$/.exec(line);
    if (before !== undefined && (before === line || (cut && before.startsWith(cut[1] as string) && before.endsWith(cut[2] as string)))) continue;
    lines.push(line);
  }
  return lines.join('\n');
}

/** An entry leaving STM because the buffer was full, and whether it consolidates on the way out. */
export interface StmEviction {
  entry: StmEntry;
  consolidate: boolean;
}

/**
 * Puts a new entry into the buffer (seed 000 `add_memory`, Miller's 7±2). When the buffer is
 * full, chunking is tried first; if nothing chunks, the weakest entry leaves, consolidated to
 * long-term memory first when its score passes the threshold or it meets an immediate trigger.
 */
export function admitToStm(
  buffer: readonly StmEntry[],
  entry: StmEntry,
  now: Date,
  config: LifecycleConfig,
  newChunkId: () => string,
): { buffer: StmEntry[]; evicted: StmEviction[] } {
  let next = [...buffer];
  const evicted: StmEviction[] = [];
  while (next.length >= config.stm.capacity) {
    const chunked = chunkBuffer(next, newChunkId(), config);
    if (chunked) {
      next = chunked;
      continue;
    }
    let weakest = 0;
    for (let i = 1; i < next.length; i++) {
      if (entryStrength(next[i] as StmEntry, now, config) < entryStrength(next[weakest] as StmEntry, now, config)) weakest = i;
    }
    const [out] = next.splice(weakest, 1) as [StmEntry];
    evicted.push({
      entry: out,
      consolidate: entryScore(out, config) > config.consolidation.threshold || immediateTriggers(out, config).length > 0,
    });
  }
  next.push(entry);
  return { buffer: next, evicted };
}

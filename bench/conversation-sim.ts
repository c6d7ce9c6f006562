/**
 * The conversation stream's short-term memory replayed without a database: LoCoMo turns through
 * libs/memory's STM step (attention, rehearsal, capacity, time rules) on event time, with the
 * rule scorer of a given configuration. What it does not replay: association with memories
 * already in the mind (an STM entry's association counts only the buffer here) and the
 * integration of near-duplicates with existing memories (an entry that would reinforce one
 * counts as reaching long-term memory here too). Fast enough to tune the rules by
 * cross-validation (bench/tune-conversation.ts); `bench:conversation` measures the real service.
 */
import { advanceStm, answersElliptically, attend, enterStm, scoreByRulesAndFacts, withExplicitSaveRequest, type LifecycleConfig, type SourcedStmEntry } from '@engram/memory';
import type { LocomoConversation, LocomoTurn } from '../scripts/locomo';

/** What the stream kept of one conversation. */
export interface StreamOutcome {
  turns: number;
  /** Turns an observation of the data cites (the turns that carry facts). */
  cited: number;
  /** Turns whose message reached a long-term memory. */
  stored: number;
  citedStored: number;
  /** Long-term memories made (a chunk is one). */
  memories: number;
  /** By what moved each one: importance, emotion, repetition, capacity, sleep_cycle, stm_timeout. */
  triggers: Record<string, number>;
}

/** The dia_ids the conversation's observations cite (`observation.session_N_observation.<speaker>: [[fact, dia_id], ...]`). */
export function citedTurns(raw: unknown): Set<string> {
  const out = new Set<string>();
  const observations = ((raw ?? {}) as { observation?: Record<string, Record<string, unknown>> }).observation ?? {};
  for (const session of Object.values(observations)) {
    for (const facts of Object.values(session ?? {})) {
      if (!Array.isArray(facts)) continue;
      for (const fact of facts) {
        const ref = Array.isArray(fact) ? fact[1] : undefined;
        for (const id of String(ref ?? '').split(/[;,\s]+/)) {
          const m = /^D:?(\d+):(\d+)$/.exec(id.trim());
          if (m) out.add(`D${Number(m[1])}:${Number(m[2])}`);
        }
      }
    }
  }
  return out;
}

/** Replays a conversation as `bench:conversation` posts it: turns in order, one second apart within a session, on the session's date. */
export function replay(
  conversation: LocomoConversation,
  cited: ReadonlySet<string>,
  config: LifecycleConfig,
  options: { end?: Date; importance?: (turn: LocomoTurn, previous: LocomoTurn | undefined) => number; emotion?: (text: string) => number } = {},
): StreamOutcome {
  const end = options.end ?? new Date();
  // As the service scores a message: with the conversation's message before it.
  const importanceOf =
    options.importance ??
    ((turn: LocomoTurn, previous: LocomoTurn | undefined) =>
      withExplicitSaveRequest({ score: scoreByRulesAndFacts(turn.utterance, { speaker: turn.speaker, previous: previous ? { speaker: previous.speaker, text: previous.utterance } : null }, config), path: 'rules' }, { role: 'user', content: turn.utterance }, config).score);
  let n = 0;
  const newId = () => `e${++n}`;
  const messageDia = new Map<string, string>();
  const kept = new Set<string>();
  const out: StreamOutcome = { turns: conversation.turns.length, cited: 0, stored: 0, citedStored: 0, memories: 0, triggers: {} };
  const keep = (entry: SourcedStmEntry, trigger: string) => {
    out.memories += 1;
    out.triggers[trigger] = (out.triggers[trigger] ?? 0) + 1;
    for (const id of entry.message_ids) kept.add(messageDia.get(id) as string);
  };
  let buffer: SourcedStmEntry[] = [];
  const advance = (at: Date) => {
    const step = advanceStm(buffer, at, config);
    for (const c of step.consolidate) keep(c.entry, c.trigger);
    buffer = step.kept;
  };
  conversation.turns.forEach((turn, position) => {
    const at = new Date((turn.sessionDate ?? end).getTime() + position * 1000);
    const id = `m${position}`;
    messageDia.set(id, turn.diaId);
    advance(at);
    const before = conversation.turns[position - 1];
    const previous = before ? { id: `m${position - 1}`, speaker: before.speaker, text: before.utterance } : null;
    const answering = previous && answersElliptically(turn.utterance, { speaker: turn.speaker, previous }) ? previous : null;
    const message = { id, speaker: turn.speaker, text: turn.utterance, importance: { score: importanceOf(turn, before), path: 'rules' as const }, emotion: options.emotion?.(turn.utterance), answering };
    const seen = attend(buffer, message, at, config);
    if (seen.kind === 'rehearsal') buffer = seen.buffer;
    if (seen.kind !== 'new') return;
    const entered = enterStm(buffer, message, 0, at, config, newId);
    buffer = entered.buffer;
    for (const e of entered.evicted) if (e.consolidate) keep(e.entry, 'capacity');
  });
  advance(end);
  for (const turn of conversation.turns) {
    const isCited = cited.has(turn.diaId);
    if (isCited) out.cited += 1;
    if (kept.has(turn.diaId)) {
      out.stored += 1;
      if (isCited) out.citedStored += 1;
    }
  }
  return out;
}

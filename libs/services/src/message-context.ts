import { NON_ANSWER, answersElliptically } from '@engram/memory';
import type { IncomingMessage } from './conversation.types';

/** Who said a message: its speaker, else its role. */
export const speakerOf = (m: Pick<IncomingMessage, 'speaker' | 'role'>): string => m.speaker ?? m.role;

/** A message said before another in its conversation: what its importance is read with. */
export interface PreviousMessage {
  id: string;
  speaker: string;
  text: string;
}

/**
 * Each message of a post (in event-time order) with the one said before it in its conversation
 * (`before`, stored earlier, for the first; a system prompt and the speaker's own "Let me think."
 * passed over: no one asked the one, the other is no answer), and the question it answers when it is
 * a short answer that says nothing without it (libs/memory `answersElliptically`: "Anna." to
 * "What is your sister's name?"), which its STM entry and memory then hold (`stmContent`).
 */
export function inContext<T extends { row: { id: string }; message: IncomingMessage }>(
  sorted: readonly T[],
  before: { id: string; speaker: string | null; role: string; content: string } | null,
): (T & { previous: PreviousMessage | null; answering: PreviousMessage | null })[] {
  const asOf = (m: T) => ({ id: m.row.id, speaker: speakerOf(m.message), text: m.message.content });
  const stored = before && before.role !== 'system' ? { id: before.id, speaker: before.speaker ?? before.role, text: before.content } : null;
  return sorted.map((item, i) => {
    // The message it is read after: past a system prompt (no person asked it) and the answerer's own
    // "Let me think." (helper 35's: the question's answer "Anna." after it was lost).
    let j = i - 1;
    while (j >= 0 && ((sorted[j] as T).message.role === 'system' || (speakerOf((sorted[j] as T).message) === speakerOf(item.message) && NON_ANSWER.test((sorted[j] as T).message.content)))) j--;
    const previous = j >= 0 ? asOf(sorted[j] as T) : stored;
    const answering = previous && answersElliptically(item.message.content, { speaker: speakerOf(item.message), previous }) ? previous : null;
    return { ...item, previous, answering };
  });
}

import { answersElliptically } from '@engram/memory';
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
 * Each message of a post (in event-time order) with the one said just before it in its
 * conversation (`before`, stored earlier, for the first), and the question it answers when it is
 * a short answer that says nothing without it (libs/memory `answersElliptically`: "Anna." to
 * "What is your sister's name?"), which its STM entry and memory then hold (`stmContent`).
 */
export function inContext<T extends { row: { id: string }; message: IncomingMessage }>(
  sorted: readonly T[],
  before: { id: string; speaker: string | null; role: string; content: string } | null,
): (T & { previous: PreviousMessage | null; answering: PreviousMessage | null })[] {
  return sorted.map((item, i) => {
    const earlier = sorted[i - 1];
    const previous = earlier
      ? { id: earlier.row.id, speaker: speakerOf(earlier.message), text: earlier.message.content }
      : before
        ? { id: before.id, speaker: before.speaker ?? before.role, text: before.content }
        : null;
    const answering = previous && answersElliptically(item.message.content, { speaker: speakerOf(item.message), previous }) ? previous : null;
    return { ...item, previous, answering };
  });
}

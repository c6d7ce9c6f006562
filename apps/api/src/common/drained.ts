import type { EventEmitter } from 'node:events';

/**
 * Resolves when a writable response can take more (`drain`) or its client has gone (`close`),
 * whichever comes first, and removes both listeners. A race of two `events.once()` left the
 * loser's `close` and `error` listeners on the response at every pause: a large export paused
 * eleven times and Node warned of a leak (MaxListenersExceededWarning, a newcomer's report).
 */
export function drainedOrClosed(stream: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

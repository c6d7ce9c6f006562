import { EventEmitter } from 'node:events';
import { drainedOrClosed } from './drained';

describe('drainedOrClosed', () => {
  it('leaves no listener behind however many times a stream pauses', async () => {
    const res = new EventEmitter();
    for (let i = 0; i < 50; i++) {
      const waiting = drainedOrClosed(res);
      res.emit('drain');
      await waiting;
    }
    expect(res.listenerCount('close')).toBe(0);
    expect(res.listenerCount('drain')).toBe(0);
    expect(res.listenerCount('error')).toBe(0);
  });

  it('ends the wait when the client goes away before the stream drains', async () => {
    const res = new EventEmitter();
    const waiting = drainedOrClosed(res);
    res.emit('close');
    await expect(waiting).resolves.toBeUndefined();
    expect(res.listenerCount('drain')).toBe(0);
  });
});

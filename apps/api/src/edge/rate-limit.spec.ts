import { FixedWindowMemoryStorage } from './rate-limit';

describe('FixedWindowMemoryStorage (the in-process rate limit, as the Redis storage counts)', () => {
  const MINUTE = 60_000;

  it('counts in a fixed window from the first request: after X-RateLimit-Reset a full limit is available again', async () => {
    let now = 1_000_000;
    const store = new FixedWindowMemoryStorage(() => now);
    const hit = () => store.increment('default:key:a', MINUTE, 3, MINUTE, 'default');
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    now += 35_000;
    await hit();
    const third = await hit();
    expect(third).toMatchObject({ totalHits: 3, timeToExpire: 25, isBlocked: false });
    // The window ends 25 s later: the requests made 35 s into it no longer count.
    now += 25_000;
    for (let i = 1; i <= 3; i++) expect(await hit()).toMatchObject({ totalHits: i, isBlocked: false });
  });

  it('refuses a bucket over its limit for the block duration from the first refusal, then counts afresh; other buckets are unaffected', async () => {
    let now = 0;
    const store = new FixedWindowMemoryStorage(() => now);
    const hit = (key = 'default:key:a') => store.increment(key, MINUTE, 2, MINUTE, 'default');
    await hit();
    await hit();
    now += 50_000;
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 60 });
    expect(await hit('default:key:b')).toMatchObject({ totalHits: 1, isBlocked: false });
    // The window ended at 60 s; the block lasts until 110 s.
    now = 100_000;
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 10 });
    now = 110_000;
    expect(await hit()).toMatchObject({ isBlocked: false });
  });
});

import { SchedulerRegistry } from '@nestjs/schedule';
import { ManualClock, type AppConfig } from '@engram/config';
import { QueueName } from '@engram/queues';
import type { FanOutJob } from './fan-out.job';
import { InProcessScheduler } from './in-process-scheduler';

// Embedded mode's timers: the same jobs as the worker's queues, and a first run within a minute
// of start, so a process that restarts often still reaches the hourly and daily work.
describe('the in-process scheduler', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const start = (intervals: Partial<AppConfig>) => {
    const runs: QueueName[] = [];
    const fanOut = { runAll: async (queue: QueueName) => (runs.push(queue), { tenants: 0, failed: [], totals: {} }) } as unknown as FanOutJob;
    const config = { REDIS_URL: undefined, SLEEP_CYCLE_INTERVAL_MS: 0, SYSTEMS_CONSOLIDATION_INTERVAL_MS: 0, TIERING_INTERVAL_MS: 0, FORGETTING_INTERVAL_MS: 0, EMBEDDINGS_BACKFILL_INTERVAL_MS: 0, ASSOCIATIONS_INTERVAL_MS: 0, ...intervals } as AppConfig;
    const registry = new SchedulerRegistry();
    const scheduler = new InProcessScheduler(fanOut, registry, config, new ManualClock('2026-01-01T00:00:00Z'));
    scheduler.onApplicationBootstrap();
    return { runs, scheduler };
  };

  it('runs a daily and an hourly job a minute after start, then on their interval; a short one only on its own', async () => {
    const { runs, scheduler } = start({ SYSTEMS_CONSOLIDATION_INTERVAL_MS: 86_400_000, TIERING_INTERVAL_MS: 3_600_000, EMBEDDINGS_BACKFILL_INTERVAL_MS: 5_000 });
    await jest.advanceTimersByTimeAsync(59_000);
    expect(runs.filter((q) => q !== QueueName.Embedding)).toEqual([]);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs.filter((q) => q !== QueueName.Embedding).sort()).toEqual([QueueName.SystemsConsolidation, QueueName.Tiering]);
    expect(runs.filter((q) => q === QueueName.Embedding)).toHaveLength(12);
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(runs.filter((q) => q === QueueName.Tiering)).toHaveLength(2);
    await scheduler.onApplicationShutdown();
  });

  it('an interval of 0 never runs', async () => {
    const { runs, scheduler } = start({});
    await jest.advanceTimersByTimeAsync(10 * 3_600_000);
    expect(runs).toEqual([]);
    await scheduler.onApplicationShutdown();
  });
});

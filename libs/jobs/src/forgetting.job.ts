import { Injectable, Optional } from '@nestjs/common';
import { MemorySweepsRepository, TenantDb, type SweepBatch, type TenantTx } from '@engram/db';
import { EngramMetrics } from '@engram/metrics';
import { QueueName } from '@engram/queues';
import { AccessRecorder, LifecycleSettings, WebhookDispatch } from '@engram/services';
import { SWEEP_BATCH, untilShort, type JobReport, type TenantJob } from './tenant-job';

/**
 * The forgetting sweep (queue `forgetting`; docs/design.md §5): retention snapshot
 * (current_retention re-anchored at `at`: the curve is exponential, so its future is unchanged),
 * soft-forgetting (retention < 0.3), eviction (archived, below 0.1, stored 30 days: deleted, a
 * tombstone kept), expired memories announced (once per expiry) and out of the vector index.
 * Critical memories are pinned. Soft-forgetting, eviction and expiry are announced to the
 * tenant's webhooks in the statement that makes them (the outbox, docs/webhooks.md), and the
 * deliveries dispatched once its transaction committed.
 * Reports `{snapshotted, soft_forgotten, evicted, expired}` (`expired`: left the vector index).
 */
@Injectable()
export class ForgettingJob implements TenantJob {
  readonly queue = QueueName.Forgetting;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly sweeps: MemorySweepsRepository,
    private readonly settings: LifecycleSettings,
    @Optional() private readonly metrics?: EngramMetrics,
    // Optional for tests that build the job bare; without it the deliveries still go, found by the dispatcher's look-up.
    @Optional() private readonly webhooks?: WebhookDispatch,
    // The API process's (embedded mode): its waiting accesses go first. Absent in bare test builds.
    @Optional() private readonly accesses?: AccessRecorder,
  ) {}

  async run(tenantId: string, at: Date): Promise<JobReport> {
    // Reads' accesses waiting in this process are written first, so the sweep sees them (another
    // process's, written up to ACCESS_FLUSH_MS later, are applied at the sweep's instant).
    await this.accesses?.flush();
    const config = await this.settings.forTenant(tenantId);
    const batch = (statement: (tx: TenantTx) => Promise<number>) => untilShort(() => this.tenantDb.run(tenantId, statement));
    const snapshotted = await batch((tx) => this.sweeps.snapshotRetention(tx, config, at, SWEEP_BATCH));
    // A statement that announces what it changes: its deliveries are dispatched after its commit.
    const announced = (statement: (tx: TenantTx) => Promise<SweepBatch>) =>
      untilShort(async () => {
        const { changed, deliveries } = await this.tenantDb.run(tenantId, statement);
        if (deliveries.length > 0) this.webhooks?.dispatch(tenantId, deliveries);
        return changed;
      });
    const softForgotten = await announced((tx) => this.sweeps.softForget(tx, config, at, SWEEP_BATCH));
    const evicted = await announced((tx) => this.sweeps.evict(tx, config, at, SWEEP_BATCH));
    this.metrics?.memoriesSoftForgotten.inc(softForgotten);
    this.metrics?.memoriesEvicted.inc(evicted);
    await announced((tx) => this.sweeps.announceExpired(tx, at, SWEEP_BATCH));
    const expired = await batch((tx) => this.sweeps.leaveVectorIndex(tx, at, SWEEP_BATCH));
    return { snapshotted, soft_forgotten: softForgotten, evicted, expired };
  }
}

import { Injectable, Optional } from '@nestjs/common';
import { MemorySweepsRepository, TenantDb, type TenantTx } from '@engram/db';
import { EngramMetrics } from '@engram/metrics';
import { QueueName } from '@engram/queues';
import { LifecycleSettings } from '@engram/services';
import { SWEEP_BATCH, untilShort, type JobReport, type TenantJob } from './tenant-job';

/**
 * The forgetting sweep (queue `forgetting`; docs/design.md §5): retention snapshot
 * (current_retention re-anchored at `at`: the curve is exponential, so its future is unchanged),
 * soft-forgetting (retention < 0.3), eviction (archived, below 0.1, stored 30 days: deleted, a
 * tombstone kept), and expired memories out of the vector index. Critical memories are pinned.
 * Reports `{snapshotted, soft_forgotten, evicted, expired}`.
 */
@Injectable()
export class ForgettingJob implements TenantJob {
  readonly queue = QueueName.Forgetting;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly sweeps: MemorySweepsRepository,
    private readonly settings: LifecycleSettings,
    @Optional() private readonly metrics?: EngramMetrics,
  ) {}

  async run(tenantId: string, at: Date): Promise<JobReport> {
    const config = await this.settings.forTenant(tenantId);
    const batch = (statement: (tx: TenantTx) => Promise<number>) => untilShort(() => this.tenantDb.run(tenantId, statement));
    const snapshotted = await batch((tx) => this.sweeps.snapshotRetention(tx, config, at, SWEEP_BATCH));
    const softForgotten = await batch((tx) => this.sweeps.softForget(tx, config, at, SWEEP_BATCH));
    const evicted = await batch((tx) => this.sweeps.evict(tx, config, at, SWEEP_BATCH));
    this.metrics?.memoriesSoftForgotten.inc(softForgotten);
    this.metrics?.memoriesEvicted.inc(evicted);
    const expired = await batch((tx) => this.sweeps.leaveVectorIndex(tx, at, SWEEP_BATCH));
    return { snapshotted, soft_forgotten: softForgotten, evicted, expired };
  }
}

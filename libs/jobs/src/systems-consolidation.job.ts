import { Injectable } from '@nestjs/common';
import { MemorySweepsRepository, TenantDb } from '@engram/db';
import { QueueName } from '@engram/queues';
import { LifecycleSettings } from '@engram/services';
import { EpisodeGeneralisation } from './episode-generalisation';
import { SWEEP_BATCH, untilShort, type JobReport, type TenantJob } from './tenant-job';

/**
 * Systems consolidation (queue `systems-consolidation`, daily; seed 000, docs/design.md §4):
 * memories whose event is older than `systems.neocortex_age_days` (30) move to the neocortex,
 * their hippocampus dependency × 0.8, once; then clusters of related episodes there are
 * generalised into semantic memories (EpisodeGeneralisation). Reports `{moved_to_neocortex, generalised}`.
 */
@Injectable()
export class SystemsConsolidationJob implements TenantJob {
  readonly queue = QueueName.SystemsConsolidation;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly sweeps: MemorySweepsRepository,
    private readonly settings: LifecycleSettings,
    private readonly generalisation: EpisodeGeneralisation,
  ) {}

  async run(tenantId: string, at: Date): Promise<JobReport> {
    const config = await this.settings.forTenant(tenantId);
    const moved = await untilShort(() => this.tenantDb.run(tenantId, (tx) => this.sweeps.moveToNeocortex(tx, config, at, SWEEP_BATCH)));
    return { moved_to_neocortex: moved, generalised: await this.generalisation.generalise(tenantId, config, at) };
  }
}

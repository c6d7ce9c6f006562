import { Global, Module } from '@nestjs/common';
import { AssociationJob } from './association.job';
import { EmbeddingBackfillJob } from './embedding-backfill.job';
import { EpisodeGeneralisation } from './episode-generalisation';
import { FanOutJob } from './fan-out.job';
import { ForgettingJob } from './forgetting.job';
import { InProcessScheduler } from './in-process-scheduler';
import { JobRegistry } from './job-registry';
import { SleepCycleJob } from './sleep-cycle.job';
import { SystemsConsolidationJob } from './systems-consolidation.job';
import { TieringJob } from './tiering.job';

const providers = [
  SleepCycleJob,
  SystemsConsolidationJob,
  TieringJob,
  ForgettingJob,
  EmbeddingBackfillJob,
  AssociationJob,
  EpisodeGeneralisation,
  JobRegistry,
  FanOutJob,
  InProcessScheduler,
];

/**
 * The background jobs (docs/background-work.md): one per queue, the fan-out, the in-process
 * scheduler of embedded mode. Needs ServicesModule.
 */
@Global()
@Module({ providers, exports: providers })
export class JobsModule {}

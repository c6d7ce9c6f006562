import { QueueName } from '@engram/queues';
import { JobRegistryError, jobsByQueue } from './job-registry';
import type { JobReport, TenantJob } from './tenant-job';

// Stand-ins named as the real jobs: the registry checks names and queues, not the work.
const run = async (): Promise<JobReport> => ({});
class SleepCycleJob implements TenantJob { readonly queue = QueueName.Consolidation; run = run; }
class SystemsConsolidationJob implements TenantJob { readonly queue = QueueName.SystemsConsolidation; run = run; }
class TieringJob implements TenantJob { readonly queue = QueueName.Tiering; run = run; }
class ForgettingJob implements TenantJob { readonly queue = QueueName.Forgetting; run = run; }
class EmbeddingBackfillJob implements TenantJob { readonly queue = QueueName.Embedding; run = run; }
class AssociationJob implements TenantJob { readonly queue = QueueName.Associations; run = run; }
class ForgettingSweep implements TenantJob { readonly queue = QueueName.Forgetting; run = run; }

const all = () => [new SleepCycleJob(), new SystemsConsolidationJob(), new TieringJob(), new ForgettingJob(), new EmbeddingBackfillJob(), new AssociationJob()];

describe('the job registry (start fails if a queue has no job)', () => {
  it('maps every queue to its job', () => {
    const byQueue = jobsByQueue(all());
    expect(byQueue.get(QueueName.Consolidation)?.constructor.name).toBe('SleepCycleJob');
    expect(byQueue.size).toBe(6);
  });

  it('refuses a queue without a job, naming it', () => {
    expect(() => jobsByQueue(all().filter((j) => j.queue !== QueueName.Tiering))).toThrow(new JobRegistryError(['queue tiering has no job']));
  });

  it('refuses two jobs for a queue, and a job whose class is not named as the queue\'s job', () => {
    expect(() => jobsByQueue([...all(), new ForgettingJob()])).toThrow(/queue forgetting has two jobs/);
    expect(() => jobsByQueue([...all().filter((j) => j.queue !== QueueName.Forgetting), new ForgettingSweep()])).toThrow(/queue forgetting runs ForgettingJob, not ForgettingSweep/);
  });
});

import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import { TenantDb, TenantsRepository } from '@engram/db';
import type { QueueName } from '@engram/queues';
import { JobRegistry } from './job-registry';
import type { FanOutReport } from './tenant-job';

/**
 * The scheduled job of every queue (twenty's habit: cron jobs fan out per tenant): it lists the
 * tenants the queue's job should run for. In the worker it enqueues one job per tenant (with a
 * deterministic id); in embedded mode {@link runAll} runs them one after another in-process.
 * One tenant's failure never stops the others.
 */
@Injectable()
export class FanOutJob {
  private readonly logger = new Logger('FanOutJob');

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly tenants: TenantsRepository,
    private readonly registry: JobRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The tenants the queue's job runs for: all (through the security-definer look-up), or the job's choice among them. */
  async tenantsFor(queue: QueueName): Promise<string[]> {
    const all = await this.tenantDb.runWithoutTenant((db) => this.tenants.allIds(db));
    const job = this.registry.job(queue);
    return job.tenantsToRun ? job.tenantsToRun(all) : all;
  }

  /** The queue's job for every tenant, one after another (embedded mode), at `at`. */
  async runAll(queue: QueueName, at: Date = this.clock.now()): Promise<FanOutReport> {
    const report: FanOutReport = { tenants: 0, failed: [], totals: {} };
    const job = this.registry.job(queue);
    for (const tenantId of await this.tenantsFor(queue)) {
      report.tenants += 1;
      try {
        for (const [k, n] of Object.entries(await job.run(tenantId, at))) report.totals[k] = (report.totals[k] ?? 0) + n;
      } catch (error) {
        report.failed.push(tenantId);
        this.logger.warn(`${queue} for tenant ${tenantId} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return report;
  }
}

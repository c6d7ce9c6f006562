import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '@engram/config';
import { StmRepository, TenantDb, tenantIds, tenantsWithPendingEmbeddings } from '@engram/db';
import { QueueName } from '@engram/queues';
import { ConversationMemory } from './conversation-memory.service';
import { EmbeddingBackfill } from './embedding-backfill.service';
import { SystemsConsolidation } from './systems-consolidation.service';
import { LifecycleSweeps } from './lifecycle-sweeps.service';

/** What one tenant's job did: counts by what changed. */
export type JobReport = Record<string, number>;

/** A run over every tenant: summed counts, and the tenants whose job failed. */
export interface FanOutReport {
  tenants: number;
  failed: string[];
  totals: JobReport;
}

/**
 * The work of every background queue for one tenant (DESIGN §7), shared by the BullMQ worker
 * (one job per tenant) and the in-process runner of embedded mode (a loop over tenants). `at` is
 * the sweep's `now`: a job carries it, so a retry computes the same state.
 */
@Injectable()
export class LifecycleJobs {
  private readonly logger = new Logger('LifecycleJobs');

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly stm: StmRepository,
    private readonly conversations: ConversationMemory,
    private readonly sweeps: LifecycleSweeps,
    private readonly backfill: EmbeddingBackfill,
    private readonly systems: SystemsConsolidation,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Every tenant's id (through the security-definer look-up: no tenant is set yet). */
  tenants(): Promise<string[]> {
    return tenantIds(this.tenantDb);
  }

  /**
   * The tenants a fan-out of `queue` should enqueue: all of them, except for embedding, where
   * only those with memories waiting or not yet checked against the current model (the
   * backfill runs every few seconds).
   */
  async tenantsFor(queue: QueueName): Promise<string[]> {
    const all = await this.tenants();
    if (queue !== QueueName.Embedding) return all;
    // Two look-ups, not one per tenant: this fan-out runs every few seconds.
    const pending = new Set(await tenantsWithPendingEmbeddings(this.tenantDb));
    return all.filter((id) => pending.has(id) || this.backfill.needsModelCheck(id));
  }

  /** One queue's work for one tenant. @throws what the database or the provider throws */
  async runForTenant(queue: QueueName, tenantId: string, at: Date): Promise<JobReport> {
    switch (queue) {
      case QueueName.Consolidation: {
        const conversations = await this.tenantDb.run(tenantId, (tx) => this.stm.conversationsWithEntries(tx));
        let consolidated = 0;
        for (const c of conversations) {
          const scope = { tenantId, mindId: c.mind_id, writer: 'agent' as const, actor: { type: 'system' as const, id: null } };
          consolidated += (await this.conversations.sleepCycle(scope, c.conversation_id)).consolidated.length;
        }
        return { conversations: conversations.length, consolidated };
      }
      case QueueName.SystemsConsolidation: {
        const moved = await this.sweeps.systems(tenantId, at);
        return { moved_to_neocortex: moved, generalised: await this.systems.generalise(tenantId, at) };
      }
      case QueueName.Tiering:
        return { ...(await this.sweeps.tiering(tenantId, at)) };
      case QueueName.Forgetting: {
        const r = await this.sweeps.forgetting(tenantId, at);
        return { snapshotted: r.snapshotted, soft_forgotten: r.softForgotten, evicted: r.evicted, expired: r.expired };
      }
      case QueueName.Embedding:
        return { embedded: await this.backfill.runForTenant(tenantId) };
    }
  }

  /**
   * One queue's work for every tenant, one after another (embedded mode); one tenant's failure
   * is logged and does not stop the others.
   */
  async runAll(queue: QueueName, at: Date = this.clock.now()): Promise<FanOutReport> {
    const report: FanOutReport = { tenants: 0, failed: [], totals: {} };
    for (const tenantId of await this.tenantsFor(queue)) {
      report.tenants += 1;
      try {
        for (const [k, n] of Object.entries(await this.runForTenant(queue, tenantId, at))) report.totals[k] = (report.totals[k] ?? 0) + n;
      } catch (error) {
        report.failed.push(tenantId);
        this.logger.warn(`${queue} for tenant ${tenantId} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return report;
  }
}

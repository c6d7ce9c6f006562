import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, CLOCK, type AppConfig, type Clock } from '@engram/config';
import { StmRepository, TenantDb, tenantIds } from '@engram/db';
import { ConversationMemory } from './conversation-memory.service';
import { EmbeddingBackfill } from './embedding-backfill.service';
import { ForgettingSweep } from './forgetting-sweep.service';
import { VectorIndexUpkeep } from './vector-index-upkeep.service';

/**
 * Runs the lifecycle's periodic work inside the API process (DESIGN §7, embedded mode): the
 * forgetting sweep (`FORGETTING_INTERVAL_MS`), the STM sleep cycle (`SLEEP_CYCLE_INTERVAL_MS`),
 * the embedding backfill (`EMBEDDINGS_BACKFILL_INTERVAL_MS`) and the vector index upkeep
 * (`VECTOR_INDEX_UPKEEP_INTERVAL_MS`). Each fans out per tenant and one
 * tenant's failure does not stop the others; a run never overlaps the previous one of its kind.
 */
@Injectable()
export class InProcessScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Scheduler');
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly stm: StmRepository,
    private readonly conversations: ConversationMemory,
    private readonly forgetting: ForgettingSweep,
    private readonly backfill: EmbeddingBackfill,
    private readonly vectorIndex: VectorIndexUpkeep,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.every('forgetting', this.config.FORGETTING_INTERVAL_MS, () => this.forgetAll());
    this.every('sleep-cycle', this.config.SLEEP_CYCLE_INTERVAL_MS, () => this.sleepAll());
    this.every('embedding', this.config.EMBEDDINGS_BACKFILL_INTERVAL_MS, () => this.backfill.runOnce());
    this.every('vector-index', this.config.VECTOR_INDEX_UPKEEP_INTERVAL_MS, () => this.vectorIndex.runOnce());
  }

  async onApplicationShutdown(): Promise<void> {
    this.timers.forEach(clearInterval);
    await Promise.allSettled([...this.running.values()]);
  }

  /** The forgetting sweep over every tenant. @returns memories soft-forgotten. */
  async forgetAll(): Promise<number> {
    let total = 0;
    for (const tenant of await tenantIds(this.tenantDb)) {
      total += await this.perTenant('forgetting', tenant, () => this.forgetting.softForget(tenant, this.clock.now()), 0);
    }
    return total;
  }

  /** The sleep cycle over every conversation with entries in STM. @returns entries consolidated. */
  async sleepAll(): Promise<number> {
    let total = 0;
    for (const tenant of await tenantIds(this.tenantDb)) {
      total += await this.perTenant('sleep-cycle', tenant, async () => {
        const conversations = await this.tenantDb.run(tenant, (tx) => this.stm.conversationsWithEntries(tx));
        let n = 0;
        for (const c of conversations) {
          const scope = { tenantId: tenant, mindId: c.mind_id, writer: 'agent' as const, actor: { type: 'system' as const, id: null } };
          n += (await this.conversations.sleepCycle(scope, c.conversation_id)).consolidated.length;
        }
        return n;
      }, 0);
    }
    return total;
  }

  private async perTenant<T>(job: string, tenant: string, work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.logger.warn(`${job} for tenant ${tenant} failed: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    }
  }

  private every(job: string, ms: number, run: () => Promise<unknown>): void {
    if (ms <= 0) return;
    const timer = setInterval(() => {
      if (this.running.has(job)) return;
      const p = run()
        .catch((error: unknown) => this.logger.warn(`${job} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.running.delete(job));
      this.running.set(job, p);
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}

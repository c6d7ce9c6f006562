import { Injectable } from '@nestjs/common';
import { AssociationsRepository, RetrievalRepository, TenantDb, TenantsRepository, type TenantTx } from '@engram/db';
import { namedThings, type LifecycleConfig } from '@engram/memory';
import { QueueName } from '@engram/queues';
import { LifecycleSettings } from '@engram/services';
import { untilShort, type JobReport, type TenantJob } from './tenant-job';

/**
 * Memories linked per transaction: the exact similarity pass compares each with every memory of
 * its mind, so a batch costs batch × mind size distances (200 × 1000 in a few tens of ms).
 */
export const ASSOCIATION_BATCH = 200;

/**
 * The association graph's builder (queue `associations`, every `ASSOCIATIONS_INTERVAL_MS`;
 * docs/design.md §6.8, seed 000 associations): links each new or changed memory that has its
 * vector (or will not get one) to its nearest memories by vector, its neighbours in its
 * conversation and the memories that share its rare named things (AssociationsRepository
 * `link`), set-based, in batches, each batch its own transaction. Idempotent: a linked memory is
 * linked again only when its content changes. Nothing when the tenant's `associations.build` is
 * off. Reports `{linked, links}`.
 */
@Injectable()
export class AssociationJob implements TenantJob {
  readonly queue = QueueName.Associations;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly associations: AssociationsRepository,
    private readonly retrieval: RetrievalRepository,
    private readonly tenants: TenantsRepository,
    private readonly settings: LifecycleSettings,
  ) {}

  async run(tenantId: string): Promise<JobReport> {
    const config = await this.settings.forTenant(tenantId);
    if (!config.associations.build) return { linked: 0, links: 0 };
    let links = 0;
    const linked = await untilShort(
      () =>
        this.tenantDb.run(tenantId, async (tx) => {
          const done = await this.linkBatch(tx, config);
          links += done.links;
          return done.linked;
        }),
      ASSOCIATION_BATCH,
    );
    return { linked, links };
  }

  /** Only the tenants with memories to link (one look-up for all of them). */
  async tenantsToRun(all: string[]): Promise<string[]> {
    const waiting = new Set(await this.tenantDb.runWithoutTenant((db) => this.tenants.withUnlinkedMemories(db)));
    return all.filter((id) => waiting.has(id));
  }

  private async linkBatch(tx: TenantTx, config: LifecycleConfig): Promise<{ linked: number; links: number }> {
    const rows = await this.associations.unlinked(tx, ASSOCIATION_BATCH);
    const byMind = new Map<string, typeof rows>();
    for (const row of rows) byMind.set(row.mind_id, [...(byMind.get(row.mind_id) ?? []), row]);
    let links = 0;
    for (const [mindId, memories] of byMind) {
      const mindSize = await this.retrieval.mindSize(tx, mindId);
      // As search scans vectors (docs/design.md §6.1): exactly below exact_scan_below, else HNSW.
      const scan = mindSize < config.retrieval.exact_scan_below ? ({ exact: true } as const) : ({ exact: false, efSearch: config.retrieval.ef_search } as const);
      const sources = memories.map((m) => ({ id: m.id, names: namedThings(m.content, m.tags) }));
      links += await this.associations.link(tx, mindId, sources, config, { scan, mindSize });
    }
    return { linked: rows.length, links };
  }
}

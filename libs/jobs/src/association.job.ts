import { Inject, Injectable } from '@nestjs/common';
import { AssociationsRepository, DATABASE_HANDLE, MindStatsRepository, TenantDb, TenantsRepository, type DatabaseHandle, type TenantTx } from '@engram/db';
import { namedThings, type LifecycleConfig } from '@engram/memory';
import { QueueName } from '@engram/queues';
import { LifecycleSettings } from '@engram/services';
import type { JobReport, TenantJob } from './tenant-job';

/**
 * Memories linked per transaction at most: the exact similarity pass compares each with every
 * memory of its mind, so a batch costs batch × mind size distances (200 × 1000 in a few tens of ms).
 */
export const ASSOCIATION_BATCH = 200;

/**
 * Distances one transaction's exact similarity pass computes at most (sources × mind size), so
 * that a bulk import into a mind of a few thousand does not hold a connection for seconds: a
 * newcomer measured 9.2 s for 500 new memories in a mind of 3,500 on embedded mode's one
 * connection. Embedded mode's PGlite computes them in WebAssembly in the API's own thread, about
 * ten times slower, and every request waits for the statement: a tenth of the budget there.
 */
export const ASSOCIATION_PAIRS = 200_000;
export const EMBEDDED_ASSOCIATION_PAIRS = 20_000;

/**
 * How many of a mind's waiting memories one transaction links: all of them when the mind is
 * searched through HNSW (a bounded look-up per memory), else as many as keep the exact pass
 * within `pairs` distances, at least one.
 *
 * @param waiting the mind's memories of this batch; @param mindSize memories of the mind
 */
export function linkBudget(waiting: number, mindSize: number, exact: boolean, pairs = ASSOCIATION_PAIRS): number {
  if (!exact) return waiting;
  return Math.min(waiting, Math.max(1, Math.floor(pairs / Math.max(1, mindSize))));
}

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
    private readonly mindStats: MindStatsRepository,
    private readonly tenants: TenantsRepository,
    private readonly settings: LifecycleSettings,
    @Inject(DATABASE_HANDLE) private readonly database: Pick<DatabaseHandle, 'mode'>,
  ) {}

  async run(tenantId: string): Promise<JobReport> {
    const config = await this.settings.forTenant(tenantId);
    if (!config.associations.build) return { linked: 0, links: 0 };
    let links = 0;
    let linked = 0;
    // Until a batch finds fewer than it asked for and links all it found: each batch its own
    // transaction, so that other work gets the connection in between.
    for (;;) {
      const done = await this.tenantDb.run(tenantId, (tx) => this.linkBatch(tx, config));
      links += done.links;
      linked += done.linked;
      if (done.found < ASSOCIATION_BATCH && done.linked === done.found) return { linked, links };
    }
  }

  /** Only the tenants with memories to link (one look-up for all of them). */
  async tenantsToRun(all: string[]): Promise<string[]> {
    const waiting = new Set(await this.tenantDb.runWithoutTenant((db) => this.tenants.withUnlinkedMemories(db)));
    return all.filter((id) => waiting.has(id));
  }

  private async linkBatch(tx: TenantTx, config: LifecycleConfig): Promise<{ found: number; linked: number; links: number }> {
    const rows = await this.associations.unlinked(tx, ASSOCIATION_BATCH);
    const byMind = new Map<string, typeof rows>();
    for (const row of rows) byMind.set(row.mind_id, [...(byMind.get(row.mind_id) ?? []), row]);
    let links = 0;
    let linked = 0;
    for (const [mindId, memories] of byMind) {
      const mindSize = await this.mindStats.mindSize(tx, mindId);
      // As search scans vectors (docs/design.md §6.1): exactly below exact_scan_below, else HNSW.
      const exact = mindSize < config.retrieval.exact_scan_below;
      const scan = exact ? ({ exact: true } as const) : ({ exact: false, efSearch: config.retrieval.ef_search } as const);
      // The rest of a large mind's batch waits for the next transaction (the next batch finds it first: id order).
      const pairs = this.database.mode === 'embedded' ? EMBEDDED_ASSOCIATION_PAIRS : ASSOCIATION_PAIRS;
      const sources = memories.slice(0, linkBudget(memories.length, mindSize, exact, pairs)).map((m) => ({ id: m.id, names: namedThings(m.content, m.tags) }));
      links += await this.associations.link(tx, mindId, sources, config, { scan, mindSize });
      linked += sources.length;
    }
    return { found: rows.length, linked, links };
  }
}

import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { MemorySweepsRepository, TenantDb, compressContent, type TenantTx } from '@engram/db';
import { gistOf } from '@engram/memory';
import { QueueName } from '@engram/queues';
import { AccessRecorder, LifecycleSettings } from '@engram/services';
import { SWEEP_BATCH, untilShort, type JobReport, type TenantJob } from './tenant-job';

/**
 * The tiering sweep (queue `tiering`; seed 000 auto_tiering, docs/design.md §5 tiers): sets every
 * memory's tier from its access frequency at `at`, then makes each memory's storage match its
 * tier: cold and archive compacted (the gist in the index, the full text brotli-compressed), hot
 * and warm expanded; archive out of the vector index, anything else back in it (re-embedded by
 * the backfill); and the memories of minds grown past `LARGE_MIND_MEMORIES` into the HNSW
 * index (`vector_indexed`). Reports `{retiered, compacted, expanded, archived, unarchived, indexed}`.
 */
@Injectable()
export class TieringJob implements TenantJob {
  readonly queue = QueueName.Tiering;

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly sweeps: MemorySweepsRepository,
    private readonly settings: LifecycleSettings,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // The API process's (embedded mode): its waiting accesses go first. Absent in bare test builds.
    @Optional() private readonly accesses?: AccessRecorder,
  ) {}

  async run(tenantId: string, at: Date): Promise<JobReport> {
    // Reads' accesses waiting in this process are written first, so the sweep sees them (another
    // process's, written up to ACCESS_FLUSH_MS later, are applied at the sweep's instant).
    await this.accesses?.flush();
    const config = await this.settings.forTenant(tenantId);
    const batch = (statement: (tx: TenantTx) => Promise<number>) => untilShort(() => this.tenantDb.run(tenantId, statement));
    const retiered = await batch((tx) => this.sweeps.retier(tx, config, at, SWEEP_BATCH));
    const compacted = await batch((tx) => this.compact(tx));
    const expanded = await batch((tx) => this.expand(tx));
    const archived = await batch((tx) => this.sweeps.leaveVectorIndex(tx, at, SWEEP_BATCH));
    const unarchived = await batch((tx) => this.sweeps.rejoinVectorIndex(tx, at, SWEEP_BATCH));
    const indexed = await batch((tx) => this.sweeps.indexLargeMinds(tx, this.config.LARGE_MIND_MEMORIES, SWEEP_BATCH));
    return { retiered, compacted, expanded, archived, unarchived, indexed };
  }

  /**
   * Compacts a batch of cold and archived memories: `content` becomes the gist (libs/memory
   * gistOf, so the full-text index keeps the gist), `content_z` the compressed full text (none
   * when the text is its own gist). Brotli runs here in the app, a batch at a time.
   */
  private async compact(tx: TenantTx): Promise<number> {
    const rows = await this.sweeps.toCompact(tx, SWEEP_BATCH);
    if (rows.length === 0) return 0;
    await this.sweeps.storeCompacted(
      tx,
      rows.map((r) => {
        const gist = gistOf(r.content);
        return { id: r.id, gist, compressed: gist === r.content ? null : compressContent(r.content) };
      }),
    );
    return rows.length;
  }

  /** Restores the full text of a batch of memories back in hot or warm (inflated on select). */
  private async expand(tx: TenantTx): Promise<number> {
    const rows = await this.sweeps.toExpand(tx, SWEEP_BATCH);
    if (rows.length > 0) await this.sweeps.storeExpanded(tx, rows);
    return rows.length;
  }
}

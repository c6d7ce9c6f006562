import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { MindStatsRepository, type TenantTx } from '@engram/db';

/** How long a process keeps whether a mind is large (ms): a mind that grows past the size is indexed this much later at most (and swept by tiering). */
const CACHE_MS = 60_000;
/** Minds one process remembers (bounded: least recently written out first). */
const CACHE_MINDS = 10_000;

/**
 * Which new memories go into the HNSW index (`vector_indexed`; docs/design.md §6.1): those of minds
 * with at least `LARGE_MIND_MEMORIES` memories, which search reaches through the index. A
 * smaller mind's writes pay for no graph: it is scanned exactly. Counted at most once a minute per
 * mind and process, and no further than the threshold.
 */
@Injectable()
export class VectorIndexing {
  private readonly large = new LRUCache<string, boolean>({ max: CACHE_MINDS, ttl: CACHE_MS });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mindStats: MindStatsRepository,
  ) {}

  /** Whether a memory written now into the mind goes into the index. */
  async indexes(tx: TenantTx, mindId: string): Promise<boolean> {
    const key = `${tx.tenantId}:${mindId}`;
    const known = this.large.get(key);
    if (known !== undefined) return known;
    const large = await this.mindStats.mindHasAtLeast(tx, mindId, this.config.LARGE_MIND_MEMORIES);
    this.large.set(key, large);
    return large;
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, CLOCK, type AppConfig, type Clock } from '@engram/config';
import { analyzeVectorIndex, DATABASE_HANDLE, readVectorIndexState, rebuildVectorIndex, type DatabaseHandle, type VectorIndexOwner, type VectorIndexState } from '@engram/db';
import { ivfflatLists, ivfflatRebuildDue } from '@engram/memory';

/** What one upkeep pass found and did. */
export interface VectorIndexReport extends VectorIndexState {
  /** The lists {@link ivfflatLists} wants for `rows`. */
  wanted: number;
  /** `rebuilt`; `skipped` (not due); `busy` (another process is rebuilding); `no-owner` (due, but this process may not rebuild). */
  action: 'rebuilt' | 'skipped' | 'busy' | 'no-owner';
}

/**
 * Keeps the ivfflat index sized to the table (docs/background-work.md, "vector index upkeep"): `lists` = rows/1000 up to
 * a million rows, sqrt(rows) beyond, rebuilt once the table has grown to
 * `VECTOR_INDEX_REBUILD_GROWTH` times the rows of the last build (or shrunk as much). Rebuilding
 * needs the table owner: the embedded database's session user, or in PostgreSQL
 * `MIGRATION_DATABASE_URL` (else `DATABASE_URL`) when that role owns the tables. Without it the
 * pass reports `no-owner` and logs the command that does it (`npm run db:reindex`).
 */
@Injectable()
export class VectorIndexUpkeep {
  private readonly logger = new Logger('VectorIndex');

  constructor(
    @Inject(DATABASE_HANDLE) private readonly handle: DatabaseHandle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The owner connection this process may use, if any. */
  get owner(): VectorIndexOwner | null {
    if (this.handle.mode === 'embedded') return { kind: 'embedded', handle: this.handle };
    const url = this.config.MIGRATION_DATABASE_URL ?? this.config.DATABASE_URL;
    return url ? { kind: 'postgres', url } : null;
  }

  /**
   * One pass: refresh the row count, rebuild when due (or when `force`; `lists` overrides the rule).
   * @throws when the database fails (not for lack of rights: that is `no-owner`)
   */
  async runOnce(options: { force?: boolean; lists?: number } = {}): Promise<VectorIndexReport> {
    const owner = this.owner;
    let state: VectorIndexState;
    let ownerOk = owner !== null;
    try {
      state = owner ? await analyzeVectorIndex(owner) : await readVectorIndexState(this.handle.db);
    } catch (error) {
      if (!isPrivilegeError(error)) throw error;
      ownerOk = false;
      state = await readVectorIndexState(this.handle.db);
    }
    const wanted = options.lists ?? ivfflatLists(state.rows);
    const due = options.force || (options.lists !== undefined && options.lists !== state.lists) || ivfflatRebuildDue(state, this.config.VECTOR_INDEX_REBUILD_GROWTH);
    if (!due) return { ...state, wanted, action: 'skipped' };
    if (!owner || !ownerOk) {
      this.logger.warn(`vector index wants lists=${wanted} for ~${state.rows} memories (has ${state.lists}); run "npm run db:reindex" as the owner of the tables`);
      return { ...state, wanted, action: 'no-owner' };
    }
    const started = Date.now();
    let done: boolean;
    try {
      done = await rebuildVectorIndex(owner, wanted, state.rows, this.clock.now());
    } catch (error) {
      if (!isPrivilegeError(error)) throw error;
      this.logger.warn(`vector index rebuild refused (${(error as Error).message}); run "npm run db:reindex" as the owner of the tables`);
      return { ...state, wanted, action: 'no-owner' };
    }
    if (!done) return { ...state, wanted, action: 'busy' };
    this.logger.log(`vector index rebuilt: lists ${state.lists} → ${wanted} for ~${state.rows} memories in ${Date.now() - started} ms`);
    return { ...(await readVectorIndexState(this.handle.db)), wanted, action: 'rebuilt' };
  }
}

/** insufficient_privilege (42501) or "must be owner of" errors. */
function isPrivilegeError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '42501' || /must be owner|permission denied/.test(e?.message ?? '');
}

import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { MemoriesRepository, MemoryAccessesRepository, TenantDb, type MemoryRow, type TenantTx } from '@engram/db';
import type { LifecycleConfig } from '@engram/memory';
import { EngramMetrics } from '@engram/metrics';
import { ThrottledWarning } from '@engram/queues';
import { accessedAt } from './accessed-row';
import { LifecycleSettings } from './lifecycle-settings.service';

/** Accesses one process holds at most (a database failing for long): beyond, new ones are dropped and counted. */
export const MAX_PENDING_ACCESSES = 100_000;
/** Tenants whose accesses one flush writes at once (each its own transaction, on its own pooled connection). */
const FLUSH_PARALLEL_TENANTS = 4;
/** Flushes a tenant's accesses may fail (the database down) before they are dropped. */
const FLUSH_ATTEMPTS = 10;

/** One tenant's waiting accesses: each memory's instants, oldest first. */
type TenantAccesses = Map<string, Date[]>;

/**
 * Records reads' accesses of memories (docs/design.md §5.5: every GET by id, search hit and recall
 * entry is an access) off the request's critical path: write-behind. A read answers with its
 * memories as they are after the access (libs/services `accessedRow`, the TypeScript form of the
 * SQL), and the access waits here; every `ACCESS_FLUSH_MS` the waiting accesses are written, one
 * transaction of two set-based statements per tenant (libs/db `accessStates`, locked, and
 * `writeAccesses`): each memory's accesses applied in order, each at its own instant (or later:
 * `accessInstant`). The lifecycle rules are the same as when a read writes its own access; only
 * when they reach the table changes.
 *
 * What a reader sees: this process's reads overlay its waiting accesses ({@link seen}), so a read
 * after a read counts both; another process sees them within `ACCESS_FLUSH_MS`.
 *
 * Loss bound: a crash of the process loses the accesses of at most the last `ACCESS_FLUSH_MS` and
 * of the flush in progress (their reinforcement and count, nothing a memory states); a clean
 * shutdown writes them all (`beforeApplicationShutdown`), and the reads it still serves write
 * their own, as with `ACCESS_FLUSH_MS=0`. While the database fails, accesses wait
 * (up to {@link MAX_PENDING_ACCESSES}, then new ones are dropped and counted in
 * `engram_accesses_dropped_total`); a tenant's batch that failed {@link FLUSH_ATTEMPTS} flushes is dropped.
 *
 * With `ACCESS_FLUSH_MS=0` nothing waits: each read writes its accesses in its own transaction
 * before answering (libs/db `recordAccess`), as before this recorder.
 */
@Injectable()
export class AccessRecorder implements BeforeApplicationShutdown {
  // At most once a minute: a database outage would otherwise log every flush.
  private readonly warning = new ThrottledWarning(new Logger('AccessRecorder'));
  private queued = new Map<string, TenantAccesses>();
  /** The batch being written: still overlaid for readers until its transaction commits. */
  private inFlight = new Map<string, TenantAccesses>();
  /**
   * The last batch written, still overlaid until the next flush ends: a reader whose snapshot was
   * taken before that batch committed would otherwise see neither the written row nor the waiting
   * access (it read 1 access of 2 under load). A reader with a newer row is not counted twice:
   * {@link seen} applies only the accesses later than the row's `last_accessed`.
   */
  private written = new Map<string, TenantAccesses>();
  private readonly attempts = new Map<string, number>();
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tenantDb: TenantDb,
    private readonly memories: MemoriesRepository,
    private readonly accesses: MemoryAccessesRepository,
    private readonly settings: LifecycleSettings,
    @Optional() private readonly metrics?: EngramMetrics,
  ) {}

  /**
   * Whether accesses wait for a flush (`ACCESS_FLUSH_MS` > 0) rather than being written by each
   * read. Not once shutdown has begun: the HTTP server still answers until Nest closes it, after
   * the last flush, and an access queued then would be flushed against a closing database.
   */
  get writeBehind(): boolean {
    return this.config.ACCESS_FLUSH_MS > 0 && !this.closed;
  }

  /**
   * Reads `ids` of the mind as accessed at `at`, inside the reader's transaction: their rows after
   * this access (and this process's earlier waiting ones), in no particular order; ids that are not
   * the mind's are left out. Write-behind: the accesses are queued once the transaction commits (a
   * rerun transaction queues them once). Otherwise written now, in `tx` (libs/db `recordAccess`).
   *
   * @param options.rows the rows, already read in `tx` (recall): not read again, only recorded
   */
  async access(tx: TenantTx, mindId: string, ids: readonly string[], at: Date, config: LifecycleConfig, options: { rows?: readonly MemoryRow[] } = {}): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    if (!this.writeBehind) return this.accesses.recordAccess(tx, mindId, ids, at, config, { returning: options.rows === undefined });
    const rows = options.rows ?? (await this.memories.findByIds(tx, mindId, ids));
    const found = rows.map((r) => r.id);
    const queue = () => this.record(tx.tenantId, found, at);
    if (tx.afterCommit) tx.afterCommit(queue);
    else queue();
    return options.rows ? [] : this.seen(tx.tenantId, rows, config).map((r) => accessedAt(r, [at], config));
  }

  /**
   * {@link access} for rows already read in `tx` (search reads more than it returns): records
   * them as accessed at `at` and gives them as the access leaves them, in no particular order.
   */
  async accessRows(tx: TenantTx, mindId: string, rows: readonly MemoryRow[], at: Date, config: LifecycleConfig): Promise<MemoryRow[]> {
    if (rows.length === 0) return [];
    if (!this.writeBehind) return this.accesses.recordAccess(tx, mindId, rows.map((r) => r.id), at, config, { returning: true });
    await this.access(tx, mindId, rows.map((r) => r.id), at, config, { rows });
    return this.seen(tx.tenantId, rows, config).map((r) => accessedAt(r, [at], config));
  }

  /**
   * Rows as a reader of this process sees them: each with the accesses still waiting here that are
   * later than its `last_accessed` applied in order (an access already written has set
   * `last_accessed` to its instant or later). For views that only look (the retention card, lists).
   */
  seen(tenantId: string, rows: readonly MemoryRow[], config: LifecycleConfig): MemoryRow[] {
    if (this.size === 0 && this.inFlight.size === 0 && this.written.size === 0) return [...rows];
    return rows.map((row) => {
      // A batch being or just written may be in the row already: only its accesses later than the
      // row's last one are not. A queued access is in no row yet, whatever its instant: two reads
      // in one millisecond, the first flushed between them, counted 1 of 2 (test/lifecycle.test.ts).
      const flushed = this.flushed(tenantId, row.id).filter((at) => row.last_accessed === null || at.getTime() > row.last_accessed.getTime());
      return accessedAt(row, [...flushed, ...(this.queued.get(tenantId)?.get(row.id) ?? [])], config);
    });
  }

  /**
   * Writes every waiting access now (tests and tools that read the table directly, the data-rights
   * export); resolves when they are written or, for a tenant whose write failed, queued again.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.size === 0) return;
    this.flushing = this.writeQueued().finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** A clean shutdown writes what waits, before the database closes (DbModule closes it in onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** A memory's accesses of the batch written last and of the one being written, oldest first. */
  private flushed(tenantId: string, id: string): Date[] {
    return [...(this.written.get(tenantId)?.get(id) ?? []), ...(this.inFlight.get(tenantId)?.get(id) ?? [])];
  }

  private record(tenantId: string, ids: readonly string[], at: Date): void {
    if (this.size + ids.length > MAX_PENDING_ACCESSES) {
      this.metrics?.accessesDropped.inc(ids.length);
      this.warning.warn(`${MAX_PENDING_ACCESSES} accesses are waiting (is the database failing?): new ones are dropped`);
      return;
    }
    let tenant = this.queued.get(tenantId);
    if (!tenant) this.queued.set(tenantId, (tenant = new Map()));
    for (const id of ids) {
      const times = tenant.get(id);
      if (times) times.push(at);
      else tenant.set(id, [at]);
    }
    this.size += ids.length;
    this.metrics?.accessesPending.set(this.size);
    if (this.closed) void this.flush().catch(() => undefined);
    else this.timer ??= setInterval(() => void this.flush().catch(() => undefined), this.config.ACCESS_FLUSH_MS).unref();
  }

  private async writeQueued(): Promise<void> {
    this.inFlight = this.queued;
    this.queued = new Map();
    const tenants = [...this.inFlight.keys()];
    const written = new Map<string, TenantAccesses>();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(FLUSH_PARALLEL_TENANTS, tenants.length) }, async () => {
        while (next < tenants.length) {
          const tenant = tenants[next++] as string;
          if (await this.writeTenant(tenant)) written.set(tenant, this.inFlight.get(tenant) as TenantAccesses);
        }
      }),
    );
    // A batch put back (failed) waits in `queued`: overlaid from there, not here as well.
    this.written = written;
    this.inFlight = new Map();
    this.metrics?.accessesPending.set(this.size);
  }

  /**
   * One tenant's waiting accesses, in one transaction of two statements whatever their number:
   * the memories' access state read and locked, each memory's accesses applied in order in
   * TypeScript (`accessedRow`, the SQL's twin), the results written.
   */
  private async writeTenant(tenantId: string): Promise<boolean> {
    const accesses = this.inFlight.get(tenantId) as TenantAccesses;
    const count = [...accesses.values()].reduce((n, times) => n + times.length, 0);
    try {
      await this.tenantDb.run(
        tenantId,
        async (tx) => {
          const config = await this.settings.get(tx);
          const states = await this.accesses.accessStates(tx, [...accesses.keys()]);
          const after = states.map((state) => accessedAt(state, accesses.get(state.id) ?? [], config));
          await this.accesses.writeAccesses(tx, after);
        },
        { durable: false },
      );
      this.size -= count;
      this.attempts.delete(tenantId);
      this.metrics?.accessesRecorded.inc(count);
      return true;
    } catch (error) {
      const attempts = (this.attempts.get(tenantId) ?? 0) + 1;
      if (attempts >= FLUSH_ATTEMPTS) {
        this.size -= count;
        this.attempts.delete(tenantId);
        this.metrics?.accessesDropped.inc(count);
        this.warning.warn(`dropped ${count} accesses of tenant ${tenantId} after ${attempts} failed writes`, error);
        return false;
      }
      this.attempts.set(tenantId, attempts);
      this.requeue(tenantId, accesses);
      this.warning.warn(`writing ${count} accesses failed (attempt ${attempts}; they wait for the next flush)`, error);
      return false;
    }
  }

  /** Puts a failed batch back ahead of what was queued since (each memory's instants stay in order). */
  private requeue(tenantId: string, accesses: TenantAccesses): void {
    const later = this.queued.get(tenantId) ?? new Map<string, Date[]>();
    for (const [id, times] of later) accesses.set(id, [...(accesses.get(id) ?? []), ...times]);
    this.queued.set(tenantId, accesses);
  }

}

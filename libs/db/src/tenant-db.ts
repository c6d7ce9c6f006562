import { Inject, Injectable } from '@nestjs/common';
import { Kysely, sql, type Transaction } from 'kysely';
import { validate as isUuid } from 'uuid';
import { PG_DEADLOCK_DETECTED, PG_SERIALIZATION_FAILURE, pgErrorCode } from './pg-errors';
import type { DB } from './schema';

const RETRYABLE = new Set([PG_DEADLOCK_DETECTED, PG_SERIALIZATION_FAILURE]);
const MAX_ATTEMPTS = 3;
/** A UUID's text form, nothing else: what may be spliced into the SET of {@link TenantDb.run}. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Injection token of the app's `Kysely<DB>`. */
export const DATABASE = Symbol('DATABASE');

/**
 * One tenant's unit of work: a transaction whose row-level security is set to `tenantId`.
 * Repository methods take it first, so a query without a tenant does not compile
 * (CONVENTIONS "Database").
 */
export interface TenantTx {
  readonly trx: Transaction<DB>;
  readonly tenantId: string;
  /**
   * Runs `callback` once this unit of work has committed; never after a rollback, nor for an
   * attempt that was rerun (a deadlock). For side effects that must not outrun the data they
   * announce, e.g. enqueueing the webhook deliveries a write inserted. A callback that throws is
   * ignored: what it does must be recoverable without it. Absent outside {@link TenantDb.run}.
   */
  readonly afterCommit?: (callback: () => void) => void;
}

/** A setting's name as `SET` takes it: a word, or an extension's `prefix.word`. */
const SETTING_NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;
/** A value spliced into `SET` (quoted): a number, or a word (`on`, `relaxed_order`). */
const SETTING_VALUE = /^[a-z0-9_.-]+$/i;

/**
 * Sets `settings` for the rest of this unit of work (`SET LOCAL`, one round trip for all), e.g. a
 * vector scan's `hnsw.ef_search`. SET LOCAL rather than set_config(): on Citus, a transaction's SET
 * LOCAL commands are replayed on the workers its later statements run on (TenantDb.run sets
 * `citus.propagate_set_commands = 'local'`), so the setting applies where the shards are;
 * set_config() stays on the coordinator. SET takes no parameters: names and values are checked to
 * be words or numbers, so nothing else can be spliced in.
 * @throws Error for a name or value that is not one
 */
export async function setLocal(tx: TenantTx, settings: Readonly<Record<string, string | number>>): Promise<void> {
  const commands = Object.entries(settings).map(([name, value]) => {
    const text = String(value);
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(text) || (typeof value === 'number' && !Number.isFinite(value))) throw new Error(`not a setting: ${name} = ${text}`);
    return `set local ${name} = '${text}'`;
  });
  if (commands.length > 0) await sql.raw(commands.join('; ')).execute(tx.trx);
}

@Injectable()
export class TenantDb {
  constructor(@Inject(DATABASE) private readonly db: Kysely<DB>) {}

  /**
   * Runs `work` in one transaction whose first statements set `app.tenant_id` (`SET LOCAL`,
   * transaction-local, propagated to Citus workers) for the RLS policies; commits when it resolves, rolls back when it throws. A deadlock or
   * serialization failure reruns it (up to 3 attempts), so `work` must not have side effects
   * outside the transaction.
   *
   * `durable: false` commits without waiting for the WAL flush (`synchronous_commit = off`): for
   * reads whose only write is access bookkeeping, a crash may lose the last few milliseconds of
   * it, never corrupt anything, and the read does not pay for a disk flush.
   */
  async run<T>(tenantId: string, work: (tx: TenantTx) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    if (!isUuid(tenantId) || !UUID_TEXT.test(tenantId)) throw new Error(`not a tenant id: ${tenantId}`);
    // BEGIN and the tenant setting travel as one simple-protocol message: one round trip, not two.
    // SET LOCAL, not set_config(): Citus replays a transaction's SET LOCAL commands on each worker
    // connection it opens when citus.propagate_set_commands is 'local' (set first, so the tenant's
    // SET is replayed), so the RLS policies see the tenant on the shards too; set_config() never
    // leaves the coordinator. On plain PostgreSQL and PGlite `citus.propagate_set_commands` is an
    // unused placeholder setting. SET takes no parameter: the id is a literal, and it can hold
    // nothing but hex digits and hyphens (UUID_TEXT, checked above), so it cannot end the quote.
    const start = sql.raw(
      `begin; set local citus.propagate_set_commands = 'local'; set local app.tenant_id = '${tenantId}'` +
        (options.durable === false ? `; set local synchronous_commit = off` : ''),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.connection().execute(async (conn) => {
          await start.execute(conn);
          const committed: (() => void)[] = [];
          try {
            const result = await work({ trx: conn as unknown as Transaction<DB>, tenantId, afterCommit: (callback) => committed.push(callback) });
            await sql.raw('commit').execute(conn);
            for (const callback of committed) {
              try {
                callback();
              } catch {
                // Documented: after-commit work is recoverable without its callback.
              }
            }
            return result;
          } catch (error) {
            await sql.raw('rollback').execute(conn).catch(() => undefined);
            throw error;
          }
        });
      } catch (error) {
        // A deadlock or serialization failure rolled the whole unit back: run it again.
        if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has(pgErrorCode(error) ?? '')) throw error;
      }
    }
  }

  /**
   * Runs `work` with no tenant set: RLS hides every tenant row. Only for the security-definer
   * look-ups that find the tenant (login, Mind Key) and for health checks.
   */
  runWithoutTenant<T>(work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return work(this.db);
  }
}

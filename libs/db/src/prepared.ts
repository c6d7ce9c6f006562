import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { Client, type QueryConfig } from 'pg';

/**
 * The comment that marks a statement as prepared: put last (`modifyEnd(PREPARED)` on a builder,
 * `${PREPARED}` at the end of a `sql` template). Such a statement is parsed and planned once per
 * connection (a named prepared statement of the extended protocol; PostgreSQL then keeps a
 * generic plan once it costs no more than the custom ones, `plan_cache_mode = auto`) instead of
 * on every call.
 *
 * Why: on a LoCoMo-size mind the planning of a search's statements cost about as much as running
 * them (the access update: 1.3 ms planning for 1 ms of work; bench/RESULTS.md, "Peers"). Only
 * statements whose text does not change with the values are marked (ids as one `uuid[]`, never
 * an IN list of one parameter each), so a connection keeps a bounded set of them.
 */
export const PREPARED_MARK = '/* prepared */';
export const PREPARED: RawBuilder<unknown> = sql.raw(` ${PREPARED_MARK}`);

/**
 * The connection settings prepared statements run under: every execution planned for its own
 * values (`plan_cache_mode = force_custom_plan`), so a statement keeps the plan it had unprepared.
 * A generic plan would be chosen from average statistics: one mind's share of a table of many
 * tenants is estimated at a row or two, and the by-id statements then scanned the whole mind
 * (seen with bench:peers' --profile); a search's statements forced generic took 2.2 s instead of
 * 0.2 s at 100 000 memories in one mind (RetrievalRepository.startSearch). Preparing still saves
 * the parse, analysis and rewrite.
 */
export const PREPARED_OPTIONS = '-c plan_cache_mode=force_custom_plan';

/** The statement's name on the connection: a digest of its text, so the same text is the same statement. */
export function preparedName(text: string): string {
  return `e_${createHash('sha1').update(text).digest('hex')}`;
}

/** Whether `text` asked to be prepared (PREPARED at its end). */
export function isPrepared(text: string): boolean {
  return text.endsWith(PREPARED_MARK);
}

/**
 * A `pg` client that runs statements marked with PREPARED as named prepared statements: the
 * pool's `Client` for PostgreSQL (`DATABASE_PREPARED_STATEMENTS`, on by default; off for a
 * transaction-mode PgBouncer older than 1.21, which cannot keep a connection's statements).
 * Every other statement runs as before. Kysely calls `query(text, values)`.
 */
export class PreparingClient extends Client {
  // pg's overloads (config objects, submittables, callbacks) pass through untouched.
  override query(...args: unknown[]): never {
    const plain = super.query as unknown as (...a: unknown[]) => never;
    const [text, values] = args;
    if (args.length <= 2 && typeof text === 'string' && isPrepared(text) && (values === undefined || Array.isArray(values))) {
      const config: QueryConfig = { name: preparedName(text), text, values: values as unknown[] | undefined };
      return plain.call(this, config);
    }
    return plain.apply(this, args);
  }
}

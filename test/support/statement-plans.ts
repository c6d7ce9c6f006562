import { Client, type QueryResult } from 'pg';

/** A statement a unit of work sent, with the plan EXPLAIN gave for it in that unit of work. */
export interface PlannedStatement {
  sql: string;
  plan: string;
}

/** How TenantDb.run starts a unit of work (libs/db/src/tenant-db.ts): one simple-protocol message. */
const UNIT_START = /^begin; set local citus\.propagate_set_commands = 'local'; set local app\.tenant_id = /;
const UNIT_END = /^(commit|rollback)\b/i;

/**
 * Runs `work` (requests to an API of this process) and records every statement sent inside a
 * tenant's unit of work (TenantDb.run: from its `begin; set local ... app.tenant_id` to its
 * commit), each with its EXPLAIN taken on the same connection just before it runs: the same
 * transaction, tenant setting and planner settings as the statement itself. Statements outside a
 * unit of work (the look-ups that find the tenant, health checks) are not recorded. For the
 * duration only, every pg Client of this process is wrapped. Each EXPLAIN runs in a savepoint
 * rolled back at once, so that one that fails (recorded as the plan) leaves the unit of work as
 * it was.
 */
export async function recordStatementPlans<T>(work: () => Promise<T>): Promise<{ result: T; statements: PlannedStatement[] }> {
  const statements: PlannedStatement[] = [];
  const inUnit = new WeakSet<Client>();
  const original = Client.prototype.query;
  const run = (client: Client, args: unknown[]) => (original as (...a: unknown[]) => unknown).apply(client, args);
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    // Kysely calls query(sql, parameters), or libs/db PreparingClient query({name, text, values})
    // for a prepared statement, and awaits the promise; anything else passes through.
    const [first, second] = args;
    const config = first !== null && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string' && args.length === 1 ? (first as { text: string; values?: unknown[] }) : null;
    const text = config ? config.text : first;
    const values = config ? config.values : second;
    if (typeof text !== 'string' || args.length > 2 || typeof values === 'function') return run(this, args);
    if (UNIT_START.test(text)) {
      inUnit.add(this);
      return run(this, args);
    }
    if (UNIT_END.test(text)) {
      inUnit.delete(this);
      return run(this, args);
    }
    if (!inUnit.has(this)) return run(this, args);
    return (async () => {
      // In a savepoint, rolled back: Citus 13.2's EXPLAIN of an INSERT with a bound parameter of
      // an extension's type (a memory's vector) fails on the worker ("could not determine data
      // type of parameter") and leaves the worker's transaction aborted; the coordinator's plan
      // (its task count) is still the routing it chose.
      await run(this, ['savepoint engram_explain']);
      try {
        const explained = (await run(this, [`explain ${text}`, values])) as QueryResult<{ 'QUERY PLAN': string }>;
        statements.push({ sql: text, plan: explained.rows.map((r) => r['QUERY PLAN']).join('\n') });
      } catch (error) {
        statements.push({ sql: text, plan: `EXPLAIN failed: ${error instanceof Error ? error.message : String(error)}` });
      }
      await run(this, ['rollback to savepoint engram_explain']);
      return run(this, args);
    })();
  } as typeof Client.prototype.query;
  try {
    return { result: await work(), statements };
  } finally {
    Client.prototype.query = original;
  }
}

/** Whether the statement reached a Citus table (its plan has a Citus scan). */
export const isDistributed = (s: PlannedStatement) => /Custom Scan \(Citus /.test(s.plan);

/**
 * Why a statement of a tenant's unit of work is not a single-shard router query, or null when it
 * is one (every task count 1, no distributed subplan, i.e. no step run first and its result
 * shipped) or reaches no Citus table at all (e.g. `select set_config(...)`). A statement that
 * reaches no Citus table itself but calls one of `definers` (security-definer functions) is not
 * one either: the function runs on the coordinator as its owner, and its reads are distributed
 * queries of their own, over that role's connections.
 */
export function notARouterQuery(s: PlannedStatement, definers: readonly string[]): string | null {
  if (s.plan.startsWith('EXPLAIN failed')) return s.plan;
  if (!isDistributed(s)) {
    const called = definers.find((name) => new RegExp(`\\b${name}\\s*\\(`).test(s.sql));
    return called ? `calls the security-definer ${called} on the coordinator` : null;
  }
  const counts = [...s.plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
  if (counts.length === 0) return 'no task count';
  if (counts.some((n) => n !== 1)) return `task counts ${counts.join(', ')}`;
  if (/Distributed Subplan/.test(s.plan)) return 'a distributed subplan';
  return null;
}

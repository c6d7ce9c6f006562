/**
 * bench:peers's bare-SQL limit: the statements Engram's API ran for each recorded search (its
 * transaction, the Mind Key lookup, search's statements and the access update, as
 * record-sql.cjs kept them), replayed with the same parameters through `pg`, in order, one
 * connection per client, connected as the API connects (engram_app, JIT off, `set role`).
 * What is left is PostgreSQL's work and the round trips: the floor under Engram's search.
 */
import { Client, type QueryConfig } from 'pg';
import { PREPARED_OPTIONS, isPrepared, preparedName } from '@engram/db';
import type { Statement } from './engram';

/** A statement as the API sent it: named (prepared once per connection) when it was marked so (libs/db prepared.ts). */
function asSent(text: string, values: unknown[]): QueryConfig {
  return isPrepared(text) ? { name: preparedName(text), text, values } : { text, values };
}

/** A recorded search's statements as the API sent them, parameters restored. */
function asSentSearch(search: Statement[]): QueryConfig[] {
  return search.map((x) => asSent(x.text, x.values.map(restored)));
}

/** Parameters back from JSON (record-sql.cjs tags Buffers). */
function restored(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(restored);
  if (v && typeof v === 'object' && '__buffer' in v) return Buffer.from(String((v as { __buffer: string }).__buffer), 'base64');
  return v;
}

export interface BareRun {
  latencies: number[];
  errors: number;
  wall_ms: number;
  first_error?: string;
}

/** A connection as the API's pool makes it. */
export async function bareClient(appUrl: string): Promise<Client> {
  const c = new Client({ connectionString: appUrl, options: `-c jit=off ${PREPARED_OPTIONS}` });
  await c.connect();
  await c.query('set role engram_app');
  return c;
}

/** Replays `searches` (each a list of statements) round robin on `clients` for `seconds`. */
export async function replay(clients: Client[], searches: Statement[][], seconds: number): Promise<BareRun> {
  const prepared = searches.map(asSentSearch);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const search = prepared[next++ % prepared.length] ?? [];
        const s = performance.now();
        try {
          for (const st of search) await c.query(st);
          // A search's window may end inside the write-behind flush's transaction (another
          // connection's statements, recorded by time): closed here, or its row locks outlived the
          // loop and the other clients waited on them for good (a run hung so at 4 clients).
          if (leavesOpen(search)) await c.query('commit');
          latencies.push(performance.now() - s);
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
          await c.query('rollback').catch(() => undefined);
        }
      }
    }),
  );
  return { latencies, errors, wall_ms: performance.now() - t0, first_error: firstError };
}

/** Whether the statements leave a transaction open: a `begin` after the last `commit` or `rollback`. */
function leavesOpen(search: readonly QueryConfig[]): boolean {
  let open = false;
  for (const st of search) {
    const head = st.text.trimStart().slice(0, 8).toLowerCase();
    if (head.startsWith('begin')) open = true;
    else if (head.startsWith('commit') || head.startsWith('rollback')) open = false;
  }
  return open;
}

/** A statement's kind for the profile: its first words, whitespace collapsed. */
export function statementKind(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 70);
}

/**
 * Where the bare SQL's time goes: every recorded search run `rounds` times on one connection,
 * each statement timed on its own (round trip included), summed by kind and divided by the
 * searches run; and `EXPLAIN (ANALYZE, BUFFERS)` of the first search's statements (the
 * transaction's own statements run plainly, so the others see the tenant setting).
 */
export async function profile(client: Client, searches: Statement[][], rounds: number): Promise<{ per_search_ms: { kind: string; ms: number; per_search: number }[]; plans: string[] }> {
  const prepared = searches.map(asSentSearch);
  const total = new Map<string, { ms: number; n: number }>();
  let runs = 0;
  for (let r = 0; r < rounds; r++) {
    for (const search of prepared) {
      runs += 1;
      for (const st of search) {
        const s = performance.now();
        await client.query(st);
        const k = statementKind(st.text);
        const t = total.get(k) ?? { ms: 0, n: 0 };
        t.ms += performance.now() - s;
        t.n += 1;
        total.set(k, t);
      }
    }
  }
  const perSearch = [...total.entries()].map(([kind, t]) => ({ kind, ms: Math.round((t.ms / runs) * 1000) / 1000, per_search: Math.round((t.n / runs) * 100) / 100 })).sort((a, b) => b.ms - a.ms);
  const plans: string[] = [];
  const plain = /^\s*(begin|commit|rollback|set |select set_config\('app\.tenant)/i;
  for (const st of prepared[0] ?? []) {
    if (plain.test(st.text)) {
      await client.query(st);
      plans.push(`-- ${statementKind(st.text)}: run plainly`);
      continue;
    }
    // A prepared statement is explained as it runs by now (its generic plan, if PostgreSQL chose one).
    const { rows } = st.name
      ? await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) execute ${st.name}(${(st.values ?? []).map((v) => literal(client, v)).join(', ')})`)
      : await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${st.text}`, st.values);
    plans.push(`-- ${statementKind(st.text)}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  return { per_search_ms: perSearch, plans };
}

/** A parameter as an SQL literal, for EXPLAIN EXECUTE (which takes no bind parameters). */
function literal(client: Client, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return client.escapeLiteral(`{${v.map((x) => (x === null ? 'NULL' : `"${String(x).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`);
  if (v instanceof Date) return client.escapeLiteral(v.toISOString());
  return client.escapeLiteral(String(v));
}

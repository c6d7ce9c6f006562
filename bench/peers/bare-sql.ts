/**
 * bench:peers's bare-SQL limit: the statements Engram's API ran for each recorded search (its
 * transaction, the Mind Key lookup, search's statements and the access update, as
 * record-sql.cjs kept them), replayed with the same parameters through `pg`, in order, one
 * connection per client, connected as the API connects (engram_app, JIT off, `set role`).
 * What is left is PostgreSQL's work and the round trips: the floor under Engram's search.
 */
import { Client } from 'pg';
import type { Statement } from './engram';

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
  const c = new Client({ connectionString: appUrl, options: '-c jit=off' });
  await c.connect();
  await c.query('set role engram_app');
  return c;
}

/** Replays `searches` (each a list of statements) round robin on `clients` for `seconds`. */
export async function replay(clients: Client[], searches: Statement[][], seconds: number): Promise<BareRun> {
  const prepared = searches.map((s) => s.map((x) => ({ text: x.text, values: x.values.map(restored) })));
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
          for (const st of search) await c.query(st.text, st.values);
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

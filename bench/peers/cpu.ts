/** bench:peers's CPU accounting: process CPU time from /proc (Linux), and a database's backends' share. */
import { readFileSync } from 'node:fs';
import type { Client } from 'pg';

/** Clock ticks a second of /proc's utime and stime (USER_HZ: 100 on every Linux build in use). */
const HZ = 100;

/** CPU time (user + system, ms) of process `pid` so far; 0 when it is gone or /proc is not there. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) in parentheses: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / HZ;
  } catch {
    return 0;
  }
}

/** The CPU times (ms) of the PostgreSQL backends connected to database `name` now, by pid. */
export async function backendCpu(admin: Client, name: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/**
 * CPU (ms) that `during` cost: process `pid`'s (or this process's when `pid` is null) and that of
 * the PostgreSQL backends of database `name` (a backend that ended meanwhile is not counted; the
 * pools stay connected while they work, so that is rare). PostgreSQL must run on this machine.
 */
export async function measuredCpu<T>(admin: Client, name: string, pid: number | null, during: () => Promise<T>): Promise<{ result: T; client_ms: number; pg_ms: number }> {
  const before = await backendCpu(admin, name);
  const self = process.cpuUsage();
  const client0 = pid === null ? 0 : cpuMs(pid);
  const result = await during();
  const clientMs = pid === null ? (() => { const d = process.cpuUsage(self); return (d.user + d.system) / 1000; })() : cpuMs(pid) - client0;
  const after = await backendCpu(admin, name);
  let pg = 0;
  for (const [p, ms] of after) pg += ms - (before.get(p) ?? 0);
  return { result, client_ms: clientMs, pg_ms: pg };
}

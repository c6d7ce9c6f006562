/**
 * bench:peers's mem0 side, seen from the bench: installs the pinned peer in bench/peers/mem0
 * (`npm ci` there when its node_modules is missing: better-sqlite3 compiles, ~2 min) and talks to
 * its driver (driver.mjs) over an IPC channel.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { log } from '../scale-api';

const DIR = `${__dirname}/mem0`;
/** Thrown, not exited: the run's `finally` drops the scratch databases. */
const fail = (message: string): never => {
  throw new Error(message);
};

export function ensureMem0(): void {
  if (existsSync(`${DIR}/node_modules/mem0ai/package.json`)) return;
  log('installing the mem0 peer in bench/peers/mem0 (npm ci; better-sqlite3 compiles, ~2 min)');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: DIR, stdio: 'inherit' });
  if (r.status !== 0) fail(`npm ci in ${DIR} exited with ${r.status}`);
}

export interface Timed {
  latencies: number[];
  errors?: number;
  wallMs: number;
}

export interface Mem0 {
  pid: number;
  call<T>(op: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

export async function startMem0(): Promise<Mem0> {
  const child: ChildProcess = fork(`${DIR}/driver.mjs`, [], { cwd: DIR, execArgv: ['--no-deprecation'], env: { ...process.env, MEM0_TELEMETRY: 'false' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.on('exit', () => child.kill('SIGKILL'));
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the mem0 driver exited with ${code}`));
    waiting.clear();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the mem0 driver exited with ${code}`)));
    child.on('message', (m: { ready?: boolean; id?: number; ok?: boolean; result?: unknown; error?: string }) => {
      if (m.ready) return resolve();
      const w = waiting.get(m.id as number);
      if (!w) return;
      waiting.delete(m.id as number);
      if (m.ok) w.resolve(m.result);
      else w.reject(new Error(`mem0 driver: ${m.error}`));
    });
  });
  return {
    pid: child.pid as number,
    call<T>(op: string, args: Record<string, unknown> = {}) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, op, ...args });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * bench:peers's Engram side: the built API as a child process on its scratch database (rate
 * limits and schedules off, vectors from the bench's embeddings server), a Mind Key per
 * conversation, and the statements one search runs, recorded in the child (record-sql.cjs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { NO_SCHEDULES } from '@engram/config';

const ROOT = `${__dirname}/../..`;
/** Thrown, not exited: the run's `finally` drops the scratch databases. */
const fail = (message: string): never => {
  throw new Error(message);
};

/** What record-sql.cjs keeps of one statement. */
export interface Statement {
  at: number;
  pid: number;
  text: string;
  values: unknown[];
}

export interface EngramApi {
  child: ChildProcess;
  base: string;
  /** The statements of each search `during` runs one at a time, in order; `during` reports each search's start and end (epoch ms). */
  record(during: () => Promise<{ start: number; end: number }[]>): Promise<Statement[][]>;
  stop(): Promise<void>;
}

/** Epoch milliseconds, sub-millisecond: what record-sql.cjs stamps statements with. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export async function startEngram(o: { appUrl: string; port: number; embeddingsUrl: string; recordFile: string }): Promise<EngramApi> {
  if (!existsSync(`${ROOT}/dist/apps/api/src/main.js`)) fail('dist/ is missing: run `npm run build` first (npm run bench:peers does)');
  const child = spawn(process.execPath, ['--require', `${ROOT}/bench/peers/record-sql.cjs`, `${ROOT}/dist/apps/api/src/main.js`], {
    env: {
      ...process.env,
      DATABASE_URL: o.appUrl,
      PORT: String(o.port),
      HOST: '127.0.0.1',
      JWT_SECRET: 'bench-peers-secret-0123456789-0123456789',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '0',
      ...NO_SCHEDULES,
      REDIS_URL: '',
      EMBEDDINGS_URL: o.embeddingsUrl,
      EMBEDDINGS_MODEL: 'engram-hashing-768',
      EMBEDDINGS_SEND_DIMENSIONS: 'false',
      ENGRAM_RECORD_SQL: o.recordFile,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${o.port}`;
  let up = false;
  for (let i = 0; i < 600 && !up; i++) {
    if (child.exitCode !== null) fail(`the API exited with ${child.exitCode}`);
    up = await fetch(`${base}/health/live`).then((r) => r.ok, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) fail('the API did not start within 60 s');

  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    child,
    base,
    async record(during) {
      await rm(o.recordFile, { force: true });
      child.kill('SIGWINCH');
      await pause(200);
      const windows = await during();
      await pause(200);
      child.kill('SIGWINCH');
      for (let i = 0; i < 100 && !existsSync(o.recordFile); i++) await pause(50);
      const all = JSON.parse(await readFile(o.recordFile, 'utf8')) as Statement[];
      await rm(o.recordFile, { force: true });
      return windows.map((w) => all.filter((s) => s.at >= w.start && s.at <= w.end).sort((a, b) => a.at - b.at));
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export async function api<T>(base: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A tenant, and a mind with a Mind Key for each conversation: the keys, in order. */
export async function mindKeys(base: string, names: string[]): Promise<string[]> {
  const reg = await api<{ token: string }>(base, 'POST', '/v1/auth/register', undefined, { email: 'peers@bench.test', password: 'bench peers correct horse', tenant_name: 'bench peers' });
  if (reg.status !== 201 && reg.status !== 200) fail(`register answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const keys: string[] = [];
  for (const name of names) {
    const mind = await api<{ id: string }>(base, 'POST', '/v1/minds', reg.body.token, { name });
    if (mind.status !== 201) fail(`creating a mind answered ${mind.status}: ${JSON.stringify(mind.body)}`);
    const key = await api<{ key: string }>(base, 'POST', `/v1/minds/${mind.body.id}/keys`, reg.body.token, {});
    if (key.status !== 201) fail(`issuing a Mind Key answered ${key.status}: ${JSON.stringify(key.body)}`);
    keys.push(key.body.key);
  }
  return keys;
}

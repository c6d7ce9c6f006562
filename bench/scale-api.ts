/** bench:scale's API: the API as a child process, and the tenants the load runs as. */
import { spawn, type ChildProcess } from 'node:child_process';
import { NO_SCHEDULES } from '@engram/config';
import { NO_RATE_LIMITS } from '../test/support/env';
import { failure } from './support';

const ROOT = `${__dirname}/..`;
const PASSWORD = 'bench scale correct horse';
/** The API's JWT secret in the benchmark (its child and the in-process sweeps share it). */
export const JWT_SECRET = 'bench-scale-secret-0123456789-0123456789';

const fail: (message: string) => never = failure('bench:scale');

export interface Tenant {
  index: number;
  id: string;
  mindId: string;
  token: string;
}

/** A progress line on stderr, stamped with the time of day (UTC). */
export function log(message: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
}

/**
 * The API as production runs it, on the scratch database, background schedules off (they would
 * run during measurements); with `profileDir`, writing its V8 CPU profile there.
 */
export async function startApi(appUrl: string, port: number, profileDir?: string): Promise<ChildProcess> {
  const profile = profileDir ? [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, `${ROOT}/dist/apps/api/src/main.js`], {
    env: {
      ...process.env,
      DATABASE_URL: appUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET,
      LOG_LEVEL: 'warn',
      ...NO_RATE_LIMITS,
      ...NO_SCHEDULES,
      REDIS_URL: '',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // Not left listening when this script fails.
  process.on('exit', () => child.kill('SIGKILL'));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) fail(`the API exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail('the API did not start within 60 s');
}

async function api<T>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

/** Registers (or, on reuse, logs in) tenant `index`'s user and makes or finds its mind. */
export async function tenant(base: string, index: number, reuse: boolean): Promise<Tenant> {
  const email = `scale-${index}@bench.test`;
  const auth = reuse
    ? await api<{ token: string }>(base, 'POST', '/v1/auth/login', { email, password: PASSWORD })
    : await api<{ token: string }>(base, 'POST', '/v1/auth/register', { email, password: PASSWORD, tenant_name: `scale ${index}` });
  if (auth.status >= 300) fail(`tenant ${index}: ${auth.status} ${JSON.stringify(auth.body)}`);
  const token = auth.body.token;
  const me = await api<{ tenant: { id: string } }>(base, 'GET', '/v1/auth/me', undefined, token);
  const minds = await api<{ items: { id: string }[] }>(base, 'GET', '/v1/minds', undefined, token);
  let mindId = minds.body.items[0]?.id;
  if (!mindId) {
    const made = await api<{ id: string }>(base, 'POST', '/v1/minds', { name: 'scale' }, token);
    mindId = made.body.id;
  }
  return { index, id: me.body.tenant.id, mindId, token };
}

export async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

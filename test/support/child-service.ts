import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/**
 * The apps as `npm run build` builds them, in a directory of their own: Nest's DI needs
 * decorator metadata, which swc emits (tsx's esbuild does not), and a test must not overwrite
 * (or depend on) the repository's `dist`. The directory is under the repository (`.test-builds/`,
 * ignored by git), so that, like `dist`, it finds node_modules, `db/migrations` and the
 * inspector's pages by walking up. @param apps the app folders to build with `libs`, e.g. `['apps/worker']`
 */
export function buildApps(apps: string[]): { dir: string; remove(): void } {
  mkdirSync(join(ROOT, '.test-builds'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.test-builds', 'build-'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/.bin/swc'), ...apps, 'libs', '-d', dir, '--ignore', '**/*.spec.ts', '--quiet'], { cwd: ROOT });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A service's real entry point running as a child process, with the tail of its output kept for failure messages. */
export class ChildService {
  private tail = '';

  constructor(readonly child: ChildProcess) {
    const keep = (chunk: Buffer) => (this.tail = `${this.tail}${chunk.toString('utf8')}`.slice(-20_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** The last 20 000 characters it wrote to stdout and stderr. */
  get output(): string {
    return this.tail;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** How it ended (waits for the end). */
  async exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.running) return { code: this.child.exitCode, signal: this.child.signalCode };
    const [code, signal] = (await once(this.child, 'exit')) as [number | null, NodeJS.Signals | null];
    return { code, signal };
  }

  /**
   * Waits until `url` answers 200 (e.g. the API's `/health/ready`).
   * @throws when the process exits first (with its output), or after `timeoutMs`
   */
  async answering(url: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      `${url} to answer 200`,
      async () => {
        if (!this.running) throw new Error(`the process exited:\n${this.output}`);
        return (await fetch(url).catch(() => undefined))?.status === 200;
      },
      timeoutMs,
      200,
    );
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited();
  }
}

/**
 * Starts `build/<main>` (e.g. `apps/worker/src/main.js`) with exactly `env` (plus PATH), so
 * nothing from the test's environment leaks in.
 */
export function spawnService(build: string, main: string, env: Record<string, string>): ChildService {
  const child = spawn(process.execPath, [join(build, main)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new ChildService(child);
}

/** A TCP port free on 127.0.0.1 right now (bound once and released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/**
 * Polls `probe` every `everyMs` until it returns a value (not undefined or false).
 * @throws after `timeoutMs`, naming `what`; or what `probe` throws
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, everyMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

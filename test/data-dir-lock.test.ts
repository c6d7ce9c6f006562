import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError, lockDataDir } from '@engram/db';

// What the embedded data directory's lock decides when it finds the lock taken, with the lock
// left behind by hand (test/embedded-restart.test.ts does it with a real SIGKILL).
describe('lockDataDir', () => {
  let root: string;
  let dir: string;
  const lost: Error[] = [];
  const lock = () => lockDataDir(dir, (error) => void lost.push(error));

  /** A lock as a process leaves it when killed: the lock directory, fresh, and its owner file. */
  const leftBehind = (owner: unknown) => {
    mkdirSync(`${dir}.lock`);
    if (owner !== undefined) writeFileSync(`${dir}.owner`, typeof owner === 'string' ? owner : JSON.stringify(owner));
  };

  /** A pid no process has now: a child that has exited (pids are not reused at once). */
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid as number;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'engram-lock-'));
    dir = join(root, 'pg');
    mkdirSync(dir);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  afterAll(() => expect(lost).toEqual([]));

  it('takes a free directory, names this process as the owner, and gives it back', async () => {
    const release = await lock();
    expect(existsSync(`${dir}.lock`)).toBe(true);
    expect(JSON.parse(readFileSync(`${dir}.owner`, 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
    await expect(lock()).rejects.toBeInstanceOf(DataDirLockedError);
    await release();
    expect(existsSync(`${dir}.lock`) || existsSync(`${dir}.owner`)).toBe(false);
    await (await lock())();
  });

  it('takes over a lock whose owner is a process of this host that no longer exists', async () => {
    leftBehind({ pid: deadPid(), host: hostname() });
    await (await lock())();
  });

  it.each([
    ['a live process (this one)', () => ({ pid: process.pid, host: hostname() })],
    ['a process of another host', () => ({ pid: deadPid(), host: `not-${hostname()}` })],
    ['nobody known (no owner file: an older Engram, or a crash before it was written)', () => undefined],
    ['an unreadable owner file', () => '{"pid": 12'],
  ])('refuses a fresh lock held by %s', async (_who, owner) => {
    leftBehind(owner());
    await expect(lock()).rejects.toBeInstanceOf(DataDirLockedError);
    expect(existsSync(`${dir}.lock`)).toBe(true);
  });
});

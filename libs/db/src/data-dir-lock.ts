import { readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import lockfile from 'proper-lockfile';

/**
 * A lock whose heartbeat stopped this long ago belongs to a process that is gone (ms); the
 * heartbeat beats every 5 s. This alone would keep a restart after a crash out for 15 s, hence
 * the owner file below.
 */
const STALE_MS = 15_000;

/** Who holds the lock: written by the owner once it has the lock, read by whoever finds it taken. */
interface Owner {
  pid: number;
  host: string;
}

/** Thrown when a live process holds the data directory (`code` as proper-lockfile's). */
export class DataDirLockedError extends Error {
  readonly code = 'ELOCKED';
}

// True only when the owner file names a process of this host that no longer exists. Anything
// less certain (no file or an unreadable one, another host's pid, a pid that answers, even as
// another user: EPERM) counts as alive, and the lock's staleness decides as before.
async function ownerIsGone(ownerPath: string): Promise<boolean> {
  let owner: Partial<Owner>;
  try {
    owner = JSON.parse(await readFile(ownerPath, 'utf8')) as Partial<Owner>;
  } catch {
    return false;
  }
  if (owner.host !== hostname() || !Number.isInteger(owner.pid) || (owner.pid as number) <= 0) return false;
  try {
    process.kill(owner.pid as number, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ESRCH';
  }
}

/**
 * Locks `dir` (PGlite's data directory) for this process: a directory lock `<dir>.lock` with a
 * heartbeat (proper-lockfile), and `<dir>.owner` naming this process. A lock found taken is
 * removed and taken again when its owner's pid is no live process on this host (it was killed,
 * SIGKILL or a crash, and could not release it); else, or when not sure, this start is refused.
 *
 * Taking the lock, reading the owner and writing it happen under a short-lived second lock
 * (`<dir>.gate.lock`), so two processes starting together after a crash cannot both decide the
 * owner is gone and both take the directory.
 *
 * @param onCompromised called if the lock is lost while held (its directory removed, or the
 *   heartbeat failing for longer than 15 s)
 * @returns the release, which removes the owner file and then the lock
 * @throws DataDirLockedError when a live process (or one not known to be gone) holds `dir`
 */
export async function lockDataDir(dir: string, onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
  const lockPath = `${dir}.lock`;
  const ownerPath = `${dir}.owner`;
  const take = () => lockfile.lock(dir, { lockfilePath: lockPath, stale: STALE_MS, update: 5_000, onCompromised });
  // Held for a few file operations; a process that died holding it leaves it stale in 2 s,
  // which the 4 s of retries outlast.
  const releaseGate = await lockfile
    .lock(`${dir}.gate`, { realpath: false, stale: 2_000, retries: { retries: 40, minTimeout: 100, maxTimeout: 100 }, onCompromised })
    .catch((error: unknown) => {
      throw (error as { code?: string }).code === 'ELOCKED' ? new DataDirLockedError(`another process is still starting on ${dir}`) : error;
    });
  try {
    let release: () => Promise<void>;
    try {
      release = await take();
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELOCKED') throw error;
      if (!(await ownerIsGone(ownerPath))) throw new DataDirLockedError(`${dir} is locked by a live process`);
      await rm(lockPath, { recursive: true, force: true });
      release = await take();
    }
    const owner: Owner = { pid: process.pid, host: hostname() };
    await writeFile(ownerPath, JSON.stringify(owner)).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    return async () => {
      // The owner file first: removed after the lock, it could be the file of a process that
      // took the lock in between. (A crash in between leaves a lock without owner: refused
      // until stale, as before.)
      await unlink(ownerPath).catch(() => undefined);
      await release();
    };
  } finally {
    await releaseGate();
  }
}

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The repository root (the folder holding `db/migrations`), found by walking up from this
 * file, so the same lookup works from `libs/` under ts and from `dist/` after a build.
 */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'db', 'migrations')) && existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find db/migrations above ${__dirname}`);
    dir = parent;
  }
}

/** The SQL migrations folder: `ENGRAM_MIGRATIONS_DIR` or `<root>/db/migrations`. */
export function migrationsDir(): string {
  return process.env.ENGRAM_MIGRATIONS_DIR ? resolve(process.env.ENGRAM_MIGRATIONS_DIR) : join(projectRoot(), 'db', 'migrations');
}

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppConfig } from '@engram/config';

/**
 * The HS256 secret for user JWTs: `JWT_SECRET`, or one generated on first start and kept in
 * `ENGRAM_DATA_DIR/jwt-secret` (mode 0600) so tokens survive restarts of an embedded server.
 */
export function resolveJwtSecret(config: AppConfig): string {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  const dir = resolve(config.ENGRAM_DATA_DIR);
  const file = join(dir, 'jwt-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dir, { recursive: true });
    const secret = randomBytes(48).toString('base64url');
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}

import { createHash, randomBytes } from 'node:crypto';

/** Every Mind Key starts with this, so the auth guard can tell it from a JWT at a glance. */
export const MIND_KEY_PREFIX = 'emk_';
/** Every tenant service key starts with this. */
export const SERVICE_KEY_PREFIX = 'esk_';

/** A new Mind Key: the prefix and 32 random bytes (256 bits), base64url. */
export function generateMindKey(): string {
  return MIND_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** A new service key: the prefix and 32 random bytes (256 bits), base64url. */
export function generateServiceKey(): string {
  return SERVICE_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * SHA-256 hex of a key (Mind Key or service key). A fast hash is right here: the key is 256
 * random bits, so there is nothing to guess, and authentication looks it up on every request.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What listings show of a key: the prefix and the first 6 random characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, MIND_KEY_PREFIX.length + 6);
}

export function looksLikeMindKey(token: string): boolean {
  return token.startsWith(MIND_KEY_PREFIX);
}

export function looksLikeServiceKey(token: string): boolean {
  return token.startsWith(SERVICE_KEY_PREFIX);
}

/** How stale `last_used_at` may get before a key's use is written again. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Whether a key's use at `now` should be recorded: `last_used_at` is for people auditing keys,
 * so minute precision is enough, and authentication does not write on every request.
 */
export function needsTouch(lastUsedAt: Date | null, now: Date): boolean {
  return !lastUsedAt || now.getTime() - lastUsedAt.getTime() > TOUCH_INTERVAL_MS;
}

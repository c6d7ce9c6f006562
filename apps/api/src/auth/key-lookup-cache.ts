import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { AppError } from '@engram/services';
import { hashKey, needsTouch } from './api-keys.codec';

/** What a key look-up finds, whatever the kind of key. */
interface KeyIdentity {
  tenant_id: string;
  id: string;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** Keys one process remembers (the least recently used out first). */
const MAX_KEYS = 100_000;

/**
 * What a Mind Key or service key look-up found, kept for `AUTH_CACHE_MS` (default 5 s; 0: every
 * request looks its key up): an agent sends the same key with every call, and the look-up was a
 * statement of every search (bench/RESULTS.md, "Peers"). Only keys that were found and not
 * revoked are kept, by the SHA-256 the table holds (never the key itself).
 *
 * Revoking a key, deleting a mind or deleting a tenant in this process forgets every entry at
 * once, so that the next request with the key is refused here; another process refuses it at
 * most `AUTH_CACHE_MS` later (docs/design.md §6.7).
 */
@Injectable()
export class KeyLookupCache {
  private readonly entries: LRUCache<string, object> | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.entries = config.AUTH_CACHE_MS > 0 ? new LRUCache<string, object>({ max: MAX_KEYS, ttl: config.AUTH_CACHE_MS }) : null;
  }

  /**
   * The live key behind `key` (a Mind Key or a service key, `label` in the errors): the kept
   * look-up, else `find` by its SHA-256 (kept when live); its use recorded by `touch` at most once
   * a minute (api-keys.codec needsTouch).
   *
   * @throws AppError 401 for an unknown or revoked key
   */
  async live<T extends KeyIdentity>(
    kind: 'mind_key' | 'service_key',
    label: string,
    key: string,
    find: (hash: string) => Promise<T | undefined>,
    touch: (found: T, at: Date) => Promise<void>,
  ): Promise<T> {
    const hash = hashKey(key);
    const cacheKey = `${kind}:${hash}`;
    const found = (this.entries?.get(cacheKey) as T | undefined) ?? (await find(hash));
    if (!found) throw new AppError('unauthorized', `invalid credentials: unknown ${label}`);
    if (found.revoked_at) throw new AppError('unauthorized', `invalid credentials: this ${label} was revoked`);
    const now = new Date();
    if (needsTouch(found.last_used_at, now)) {
      await touch(found, now);
      found.last_used_at = now;
    }
    this.entries?.set(cacheKey, found);
    return found;
  }

  /** Forgets every look-up: after a revocation or a deletion that takes keys with it. */
  clear(): void {
    this.entries?.clear();
  }
}

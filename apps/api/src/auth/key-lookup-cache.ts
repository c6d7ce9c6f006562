import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '@engram/config';

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

  /** The look-up kept for this key hash (`kind` keeps Mind Keys and service keys apart), if any. */
  get<T extends object>(kind: 'mind_key' | 'service_key', hash: string): T | undefined {
    return this.entries?.get(`${kind}:${hash}`) as T | undefined;
  }

  /** Keeps a look-up that found a live key; the entry's age runs from now. */
  set(kind: 'mind_key' | 'service_key', hash: string, found: object): void {
    this.entries?.set(`${kind}:${hash}`, found);
  }

  /** Forgets every look-up: after a revocation or a deletion that takes keys with it. */
  clear(): void {
    this.entries?.clear();
  }
}

import { Injectable } from '@nestjs/common';
import { ServiceKeysRepository, TenantDb, type ServiceKeyListing, type ServiceKeyScope } from '@engram/db';
import { AppError } from '@engram/services';
import { decodeCursor, encodeCursor, newId } from '../common/ids';
import { displayPrefix, generateServiceKey, hashKey } from '../auth/api-keys.codec';
import type { UserPrincipal } from '../auth/principal';
import { KeyLookupCache } from '../auth/key-lookup-cache';

function keyView(key: ServiceKeyListing) {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    key_prefix: key.key_prefix,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

/** Tenant service keys: issued and revoked by the tenant's owners and admins (docs/design.md §2). */
@Injectable()
export class ServiceKeysService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly keys: ServiceKeysRepository,
    private readonly keyLookups: KeyLookupCache,
  ) {}

  /** Issues a key; the key is in this answer only (stored as its SHA-256). */
  async create(principal: UserPrincipal, input: { name: string; scopes: ServiceKeyScope[] }) {
    const key = generateServiceKey();
    const row = await this.tenantDb.run(principal.tenantId, (tx) =>
      this.keys.create(tx, {
        id: newId(),
        name: input.name,
        scopes: input.scopes,
        key_prefix: displayPrefix(key),
        key_hash: hashKey(key),
        created_by: principal.userId,
      }),
    );
    return { ...keyView(row), key };
  }

  /** The tenant's keys without their secrets, newest first: `{items, next_cursor}`. */
  async list(principal: UserPrincipal, query: { limit: number; cursor?: string }) {
    const after = decodeCursor(query.cursor);
    const rows = await this.tenantDb.run(principal.tenantId, (tx) => this.keys.list(tx, { after, limit: query.limit + 1 }));
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { items: page.map(keyView), next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
  }

  /** Revokes a key: refused at once by this process, by others within AUTH_CACHE_MS (KeyLookupCache); revoking twice is fine. @throws AppError 404 for a key not of this tenant. */
  async revoke(principal: UserPrincipal, id: string): Promise<void> {
    const found = await this.tenantDb.run(principal.tenantId, (tx) => this.keys.revoke(tx, id, new Date()));
    this.keyLookups.clear();
    if (!found) throw AppError.notFound('service key');
  }
}

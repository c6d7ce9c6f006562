import { Injectable } from '@nestjs/common';
import { ServiceKeysRepository, TenantDb, type ServiceKeyIdentity } from '@engram/db';
import { AppError } from '@engram/services';
import { hashKey, needsTouch } from './api-keys.codec';
import { KeyLookupCache } from './key-lookup-cache';
import type { ServiceKeyPrincipal } from './principal';

/** Authenticates SaaS backends by tenant service key (docs/design.md §2). */
@Injectable()
export class ServiceKeyAuthService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly keys: ServiceKeysRepository,
    private readonly cache: KeyLookupCache,
  ) {}

  /**
   * The principal of a service key: found by its SHA-256 across tenants, then its use recorded
   * (at most once a minute) inside its own tenant.
   *
   * @throws AppError 401 for an unknown or revoked key (a deleted tenant's keys are gone with it).
   */
  async authenticate(key: string): Promise<ServiceKeyPrincipal> {
    const hash = hashKey(key);
    const found = this.cache.get<ServiceKeyIdentity>('service_key', hash) ?? (await this.tenantDb.runWithoutTenant((db) => this.keys.findByHash(db, hash)));
    if (!found) throw new AppError('unauthorized', 'invalid credentials: unknown service key');
    if (found.revoked_at) throw new AppError('unauthorized', 'invalid credentials: this service key was revoked');
    const now = new Date();
    if (needsTouch(found.last_used_at, now)) {
      await this.tenantDb.run(found.tenant_id, (tx) => this.keys.touch(tx, found.id, now));
      found.last_used_at = now;
    }
    this.cache.set('service_key', hash, found);
    return { kind: 'service_key', tenantId: found.tenant_id, keyId: found.id, scopes: found.scopes };
  }
}

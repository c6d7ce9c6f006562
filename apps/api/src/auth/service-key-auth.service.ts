import { Injectable } from '@nestjs/common';
import { ServiceKeysRepository, TenantDb, type ServiceKeyIdentity } from '@engram/db';
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
    const found = await this.cache.live<ServiceKeyIdentity>(
      'service_key',
      'service key',
      key,
      (hash) => this.tenantDb.runWithoutTenant((db) => this.keys.findByHash(db, hash)),
      (stored, at) => this.tenantDb.run(stored.tenant_id, (tx) => this.keys.touch(tx, stored.id, at)),
    );
    return { kind: 'service_key', tenantId: found.tenant_id, keyId: found.id, scopes: found.scopes };
  }
}

import { Injectable } from '@nestjs/common';
import { MindKeysRepository, TenantDb, type MindKeyIdentity } from '@engram/db';
import { KeyLookupCache } from './key-lookup-cache';
import type { MindKeyPrincipal } from './principal';

/** Authenticates agents by Mind Key. */
@Injectable()
export class MindKeyAuthService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly keys: MindKeysRepository,
    private readonly cache: KeyLookupCache,
  ) {}

  /**
   * The principal of a Mind Key: found by its SHA-256 across tenants, then its use recorded
   * inside its own tenant.
   *
   * @throws AppError 401 for an unknown or revoked key (a deleted mind's keys are gone with it).
   */
  async authenticate(key: string): Promise<MindKeyPrincipal> {
    const found = await this.cache.live<MindKeyIdentity>(
      'mind_key',
      'Mind Key',
      key,
      (hash) => this.tenantDb.runWithoutTenant((db) => this.keys.findByHash(db, hash)),
      (stored, at) => this.tenantDb.run(stored.tenant_id, (tx) => this.keys.touch(tx, stored.id, at)),
    );
    return { kind: 'mind_key', tenantId: found.tenant_id, mindId: found.mind_id, keyId: found.id };
  }
}

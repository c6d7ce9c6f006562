import { Injectable } from '@nestjs/common';
import { MindKeysRepository, TenantDb, type MindKeyIdentity } from '@engram/db';
import { AppError } from '@engram/services';
import { hashKey, needsTouch } from './api-keys.codec';
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
    const hash = hashKey(key);
    const found = this.cache.get<MindKeyIdentity>('mind_key', hash) ?? (await this.tenantDb.runWithoutTenant((db) => this.keys.findByHash(db, hash)));
    if (!found) throw new AppError('unauthorized', 'invalid credentials: unknown Mind Key');
    if (found.revoked_at) throw new AppError('unauthorized', 'invalid credentials: this Mind Key was revoked');
    const now = new Date();
    if (needsTouch(found.last_used_at, now)) {
      await this.tenantDb.run(found.tenant_id, (tx) => this.keys.touch(tx, found.id, now));
      found.last_used_at = now;
    }
    this.cache.set('mind_key', hash, found);
    return { kind: 'mind_key', tenantId: found.tenant_id, mindId: found.mind_id, keyId: found.id };
  }
}

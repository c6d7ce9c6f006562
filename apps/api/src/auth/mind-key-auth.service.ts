import { Injectable } from '@nestjs/common';
import { MindKeysRepository, TenantDb } from '@engram/db';
import { AppError } from '@engram/services';
import { hashKey, needsTouch } from './api-keys.codec';
import type { MindKeyPrincipal } from './principal';

/** Authenticates agents by Mind Key. */
@Injectable()
export class MindKeyAuthService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly keys: MindKeysRepository,
  ) {}

  /**
   * The principal of a Mind Key: found by its SHA-256 across tenants, then its use recorded
   * inside its own tenant.
   *
   * @throws AppError 401 for an unknown or revoked key (a deleted mind's keys are gone with it).
   */
  async authenticate(key: string): Promise<MindKeyPrincipal> {
    const found = await this.tenantDb.runWithoutTenant((db) => this.keys.findByHash(db, hashKey(key)));
    if (!found) throw new AppError('unauthorized', 'invalid credentials: unknown Mind Key');
    if (found.revoked_at) throw new AppError('unauthorized', 'invalid credentials: this Mind Key was revoked');
    const now = new Date();
    if (needsTouch(found.last_used_at, now)) {
      await this.tenantDb.run(found.tenant_id, (tx) => this.keys.touch(tx, found.id, now));
    }
    return { kind: 'mind_key', tenantId: found.tenant_id, mindId: found.mind_id, keyId: found.id };
  }
}

import { Injectable } from '@nestjs/common';
import {
  MindKeysRepository,
  MindsRepository,
  PG_UNIQUE_VIOLATION,
  TenantDb,
  pgErrorCode,
  type Mind,
  type MindKeyListing,
  type TenantTx,
} from '@engram/db';
import { AppError } from '@engram/services';
import { decodeCursor, encodeCursor, newId } from '../common/ids';
import { displayPrefix, generateMindKey, hashMindKey } from '../auth/mind-key.codec';
import type { UserPrincipal } from '../auth/principal';

export function mindView(mind: Mind) {
  return {
    id: mind.id,
    name: mind.name,
    description: mind.description,
    created_at: mind.created_at.toISOString(),
    updated_at: mind.updated_at.toISOString(),
  };
}

function keyView(key: MindKeyListing) {
  return {
    id: key.id,
    mind_id: key.mind_id,
    name: key.name,
    key_prefix: key.key_prefix,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

/** Minds (agent identities) of a tenant and their Mind Keys (docs/design.md §2). */
@Injectable()
export class MindsService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindsRepository,
    private readonly keys: MindKeysRepository,
  ) {}

  /** @throws AppError 409 when the tenant already has a mind of that name. */
  async create(principal: UserPrincipal, input: { name: string; description?: string }) {
    try {
      const mind = await this.tenantDb.run(principal.tenantId, (tx) =>
        this.minds.create(tx, { id: newId(), name: input.name, description: input.description ?? null }),
      );
      return mindView(mind);
    } catch (error) {
      if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) {
        const rule = `this tenant already has a mind named "${input.name}"`;
        throw new AppError('conflict', `name: ${rule}`, [{ field: 'name', message: rule }]);
      }
      throw error;
    }
  }

  async list(principal: UserPrincipal, query: { limit: number; cursor?: string; name?: string }) {
    const after = decodeCursor(query.cursor);
    const rows = await this.tenantDb.run(principal.tenantId, (tx) =>
      this.minds.list(tx, { after, limit: query.limit + 1, name: query.name }),
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { items: page.map(mindView), next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
  }

  /** @throws AppError 404 when the mind is not this tenant's. */
  async get(principal: UserPrincipal, id: string) {
    return mindView(await this.tenantDb.run(principal.tenantId, (tx) => this.mustFind(tx, id)));
  }

  /** Deletes the mind with its memories, versions, messages and keys. @throws AppError 404 */
  async delete(principal: UserPrincipal, id: string): Promise<void> {
    const deleted = await this.tenantDb.run(principal.tenantId, (tx) => this.minds.delete(tx, id));
    if (!deleted) throw AppError.notFound('mind');
  }

  /** Issues a Mind Key; the key is in this answer only. @throws AppError 404 for a foreign mind. */
  async createKey(principal: UserPrincipal, mindId: string, input: { name?: string }) {
    const key = generateMindKey();
    const row = await this.tenantDb.run(principal.tenantId, async (tx) => {
      await this.mustFind(tx, mindId);
      return this.keys.create(tx, {
        id: newId(),
        mind_id: mindId,
        name: input.name ?? 'default',
        key_prefix: displayPrefix(key),
        key_hash: hashMindKey(key),
        created_by: principal.userId,
      });
    });
    return { ...keyView(row), key };
  }

  async listKeys(principal: UserPrincipal, mindId: string) {
    const rows = await this.tenantDb.run(principal.tenantId, async (tx) => {
      await this.mustFind(tx, mindId);
      return this.keys.listForMind(tx, mindId);
    });
    return { items: rows.map(keyView) };
  }

  /** Revokes a key at once; revoking twice is fine. @throws AppError 404 for an unknown key or mind. */
  async revokeKey(principal: UserPrincipal, mindId: string, keyId: string): Promise<void> {
    const found = await this.tenantDb.run(principal.tenantId, (tx) => this.keys.revoke(tx, mindId, keyId, new Date()));
    if (!found) throw AppError.notFound('mind key');
  }

  private async mustFind(tx: TenantTx, id: string): Promise<Mind> {
    const mind = await this.minds.findById(tx, id);
    if (!mind) throw AppError.notFound('mind');
    return mind;
  }
}

import { Injectable } from '@nestjs/common';
import {
  MindKeysRepository,
  MindsRepository,
  PG_UNIQUE_VIOLATION,
  TenantDb,
  WebhooksRepository,
  pgErrorCode,
  type Mind,
  type MindKeyListing,
  type TenantTx,
} from '@engram/db';
import { AppError } from '@engram/services';
import { decodeCursor, encodeCursor, newId } from '../common/ids';
import { charLength } from '../common/zod-fields';
import { displayPrefix, generateMindKey, hashKey } from '../auth/api-keys.codec';
import type { UserPrincipal } from '../auth/principal';
import { KeyLookupCache } from '../auth/key-lookup-cache';

/** Who acts on a tenant's minds: a person (JWT) or a service key with `minds:manage`. */
type TenantCaller = { tenantId: string };

export function mindView(mind: Mind) {
  return {
    id: mind.id,
    name: mind.name,
    description: mind.description,
    external_id: mind.external_id,
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

/**
 * Minds (agent identities) of a tenant and their Mind Keys (docs/design.md §2). A mind's name is
 * stored and compared composed (Unicode NFC; the body's schema composes it, `composedLine`), so
 * that "Zoë" typed with a combining diaeresis is one name; external ids are kept as given.
 */
@Injectable()
export class MindsService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindsRepository,
    private readonly keys: MindKeysRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly keyLookups: KeyLookupCache,
  ) {}

  /** @throws AppError 409 when the tenant already has a mind of that name or external id. */
  async create(principal: TenantCaller, input: { name: string; description?: string; external_id?: string }) {
    try {
      const mind = await this.tenantDb.run(principal.tenantId, (tx) =>
        this.minds.create(tx, { id: newId(), name: input.name, description: input.description ?? null, external_id: input.external_id ?? null }),
      );
      return mindView(mind);
    } catch (error) {
      throw this.conflictOf(error, input);
    }
  }

  /**
   * The mind of an end user, by the SaaS's own id (`externalId`), created when there is none:
   * idempotent, and concurrent calls get the same mind. The name defaults to the external id;
   * `name` and `description` are used only when the mind is created (an existing mind is
   * returned as it is). @returns the mind and whether this call created it.
   *
   * @throws AppError 409 naming `name` when another mind of the tenant already has that name.
   */
  async ensureByExternalId(principal: TenantCaller, externalId: string, input: { name?: string; description?: string }) {
    // The default name, the external id, is composed like a given one (the schema composes that);
    // composing may lengthen it past a name's 200 characters, and then it is kept as given.
    const composed = externalId.normalize('NFC');
    const name = input.name ?? (charLength(composed) <= 200 ? composed : externalId);
    try {
      const { mind, created } = await this.tenantDb.run(principal.tenantId, (tx) =>
        this.minds.findOrCreateByExternalId(tx, { id: newId(), name, description: input.description ?? null, external_id: externalId }),
      );
      return { mind: mindView(mind), created };
    } catch (error) {
      throw this.conflictOf(error, { name });
    }
  }

  async list(principal: TenantCaller, query: { limit: number; cursor?: string; name?: string; external_id?: string }) {
    const after = decodeCursor(query.cursor);
    const rows = await this.tenantDb.run(principal.tenantId, (tx) =>
      this.minds.list(tx, { after, limit: query.limit + 1, name: query.name?.normalize('NFC'), externalId: query.external_id }),
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { items: page.map(mindView), next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
  }

  /** @throws AppError 404 when the mind is not this tenant's. */
  async get(principal: TenantCaller, id: string) {
    return mindView(await this.tenantDb.run(principal.tenantId, (tx) => this.mustFind(tx, id)));
  }

  /** Deletes the mind with its memories, versions, messages, keys and the webhook deliveries about its memories. @throws AppError 404 */
  async delete(principal: TenantCaller, id: string): Promise<void> {
    const deleted = await this.tenantDb.run(principal.tenantId, async (tx) => {
      const gone = await this.minds.delete(tx, id);
      if (gone) await this.webhooks.deleteForMind(tx, id);
      return gone;
    });
    // Its keys went with it: no cached look-up may still let them in.
    this.keyLookups.clear();
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
        key_hash: hashKey(key),
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

  /** Revokes a key: refused at once by this process, by others within AUTH_CACHE_MS (KeyLookupCache); revoking twice is fine. @throws AppError 404 for an unknown key or mind. */
  async revokeKey(principal: UserPrincipal, mindId: string, keyId: string): Promise<void> {
    const found = await this.tenantDb.run(principal.tenantId, (tx) => this.keys.revoke(tx, mindId, keyId, new Date()));
    this.keyLookups.clear();
    if (!found) throw AppError.notFound('mind key');
  }

  // A unique violation names the field it is about: the external id's index, else the name.
  private conflictOf(error: unknown, input: { name: string; external_id?: string }): unknown {
    if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) return error;
    if (input.external_id !== undefined && String((error as { constraint?: string }).constraint).includes('external_id')) {
      const rule = `this tenant already has a mind with the external id "${input.external_id}"`;
      return new AppError('conflict', `external_id: ${rule}`, [{ field: 'external_id', message: rule }]);
    }
    const rule = `this tenant already has a mind named "${input.name}"`;
    return new AppError('conflict', `name: ${rule}`, [{ field: 'name', message: rule }]);
  }

  private async mustFind(tx: TenantTx, id: string): Promise<Mind> {
    const mind = await this.minds.findById(tx, id);
    if (!mind) throw AppError.notFound('mind');
    return mind;
  }
}

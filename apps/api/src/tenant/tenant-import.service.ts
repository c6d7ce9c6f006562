import { Injectable } from '@nestjs/common';
import { MemoriesRepository, MindsRepository, TenantDb, newId, type TenantTx } from '@engram/db';
import { canonicalJson } from '@engram/memory';
import { LifecycleSettings, LifecycleSettingsError, MemoryWriter, withoutRemovedSettings, type RestoredMemory } from '@engram/services';
import type { UserPrincipal } from '../auth/principal';
import type { MemoryLine } from './data-rights.dto';
import { lineError, parseImportFile, type ParsedImport } from './import-file';
import { importedChange, restoredMemory } from './import-rows';

/** Memories matched per statement of the import. */
const IMPORT_CHUNK = 500;

export interface ImportResult {
  minds: { created: number; matched: number };
  memories: { created: number; updated: number; unchanged: number };
  versions: { created: number };
  settings: 'replaced' | 'unchanged' | 'absent';
}

/**
 * Data rights (docs/data-rights.md): a TenantExport file imported into a tenant, all or nothing,
 * for its owner (the controller checks). Memories are written through the services'
 * MemoryWriter, like every other write.
 */
@Injectable()
export class TenantImport {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
    private readonly minds: MindsRepository,
    private readonly memories: MemoriesRepository,
    private readonly writer: MemoryWriter,
  ) {}

  /**
   * Restores an export into the caller's tenant, all or nothing (one transaction); importing the
   * same file again changes nothing. Minds are matched by id, then by name, else created with
   * the file's id (ids are per tenant). Memories are matched by (mind, category, key): absent
   * ones are created with the file's id when it is free in the tenant (else a new one), with
   * their lifecycle fields and their whole history; present ones whose content fields (content,
   * tags, priority, source, verified, confidence, expires_at, occurred_at, memory_type, payload,
   * source_refs, temporal context) match are left alone; others take the file's content as a
   * new version (change `update`, by the importing user), keeping their own history. Settings
   * replace the tenant's lifecycle overrides.
   *
   * @throws AppError 400 naming the line and field of the first bad line; nothing is stored then.
   */
  async import(principal: UserPrincipal, text: string, now: Date): Promise<ImportResult> {
    const file = parseImportFile(text, now);
    try {
      return await this.tenantDb.run(principal.tenantId, async (tx) => {
        const result: ImportResult = { minds: { created: 0, matched: 0 }, memories: { created: 0, updated: 0, unchanged: 0 }, versions: { created: 0 }, settings: 'absent' };
        // Settings first: a change of strength rescales the memories already there, not the imported ones.
        if (file.settings) result.settings = await this.importSettings(tx, file.settings.lifecycle);
        const mindIdOf = await this.importMinds(tx, file, result);
        for (let start = 0; start < file.memories.length; start += IMPORT_CHUNK) {
          await this.importMemories(tx, principal, file.memories.slice(start, start + IMPORT_CHUNK), mindIdOf, file, now, result);
        }
        return result;
      });
    } catch (error) {
      if (error instanceof LifecycleSettingsError && file.settings) {
        const first = error.problems[0];
        throw lineError(file.settings.line, `lifecycle.${first?.path ?? ''}`, first?.message ?? 'is not a valid lifecycle config');
      }
      throw error;
    }
  }

  /** The file's lifecycle overrides replace the tenant's, unless they are the same. */
  private async importSettings(tx: TenantTx, exported: Record<string, unknown>): Promise<ImportResult['settings']> {
    // An export of an earlier version may hold settings since removed (retrieval.probes): dropped.
    const lifecycle = withoutRemovedSettings(exported);
    if (canonicalJson(await this.settings.overrides(tx)) === canonicalJson(lifecycle)) return 'unchanged';
    await this.settings.replace(tx, lifecycle);
    return 'replaced';
  }

  /** Minds by id, then by external id, then by name, else created with the file's id. @returns the tenant's mind id for each of the file's */
  private async importMinds(tx: TenantTx, file: ParsedImport, result: ImportResult): Promise<Map<string, string>> {
    const mindIdOf = new Map<string, string>();
    for (const mind of file.minds) {
      const externalId = mind.external_id ?? null;
      const existing = await this.minds.findByIdOrName(tx, mind.id, mind.name, externalId);
      const match =
        existing.find((m) => m.id === mind.id) ??
        existing.find((m) => externalId !== null && m.external_id === externalId) ??
        existing.find((m) => m.name === mind.name);
      if (match) {
        mindIdOf.set(mind.id, match.id);
        result.minds.matched += 1;
      } else {
        // Restored as exported, dates included (a tester's find: a restored mind was dated by the import).
        await this.minds.create(tx, { id: mind.id, name: mind.name, description: mind.description ?? null, external_id: externalId, created_at: mind.created_at ?? mind.updated_at, updated_at: mind.updated_at ?? mind.created_at });
        mindIdOf.set(mind.id, mind.id);
        result.minds.created += 1;
      }
    }
    return mindIdOf;
  }

  /** One chunk of memory lines: matched by (mind, category, key), then restored, changed or left alone. */
  private async importMemories(
    tx: TenantTx,
    principal: UserPrincipal,
    chunk: readonly MemoryLine[],
    mindIdOf: ReadonlyMap<string, string>,
    file: ParsedImport,
    now: Date,
    result: ImportResult,
  ): Promise<void> {
    const target = (m: MemoryLine) => mindIdOf.get(m.mind_id) as string;
    const existing = await this.memories.findByKeysForUpdate(tx, chunk.map((m) => ({ mind_id: target(m), category: m.category, key: m.key })));
    const byKey = new Map(existing.map((r) => [`${r.mind_id}/${r.category}/${r.key}`, r]));
    const taken = await this.memories.takenIds(tx, chunk.map((m) => m.id));
    const restored: RestoredMemory[] = [];
    const importer = { type: 'user' as const, id: principal.userId };
    for (const m of chunk) {
      const mindId = target(m);
      const row = byKey.get(`${mindId}/${m.category}/${m.key}`);
      if (!row) {
        restored.push(restoredMemory(m, { mindId, id: taken.has(m.id) ? newId() : m.id }, file.versions.get(m.id) ?? [], { userId: principal.userId, now }));
        continue;
      }
      const patch = importedChange(row, m, now);
      if (!patch) {
        result.memories.unchanged += 1;
        continue;
      }
      await this.writer.change(tx, row, patch, importer, { now });
      result.memories.updated += 1;
      result.versions.created += 1;
    }
    if (restored.length === 0) return;
    result.versions.created += await this.writer.restore(tx, restored);
    result.memories.created += restored.length;
  }
}

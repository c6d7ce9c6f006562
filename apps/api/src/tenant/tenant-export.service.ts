import { Injectable } from '@nestjs/common';
import { MemoriesRepository, MemoryVersionsRepository, MindsRepository, TenantDb, TenantsRepository } from '@engram/db';
import type { UserPrincipal } from '../auth/principal';
import { AccessRecorder, AppError, LifecycleSettings } from '@engram/services';
import { memoryView, versionView } from '../memory/memory.view';
import { mindView } from '../minds/minds.service';
import { EXPORT_FORMAT, EXPORT_VERSION } from './data-rights.dto';

/** Rows per query of the export (keyset pagination by id). */
export const EXPORT_BATCH = 1000;

/**
 * Data rights (docs/data-rights.md): a tenant's data as JSONL, for its owner (the controller checks), in
 * the format TenantImport reads back.
 */
@Injectable()
export class TenantExport {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
    private readonly tenants: TenantsRepository,
    private readonly minds: MindsRepository,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly accesses: AccessRecorder,
  ) {}

  /**
   * The tenant's data as JSONL lines (each without its line break), in this order: `tenant`,
   * `settings`, then each mind followed by its memories, each memory followed by its versions
   * (oldest first). Read in batches of {@link EXPORT_BATCH} rows, one short transaction each, so
   * nothing big is held in memory or locks; not a snapshot: a write during the export may or may
   * not be in it, but every memory follows its mind and every version its memory.
   * No secrets: Mind Keys, users and password hashes are not exported.
   */
  async *exportLines(principal: UserPrincipal, now: Date): AsyncGenerator<string> {
    // The accesses this process has not written yet belong in the export (their counts and retention).
    await this.accesses.flush();
    const head = await this.tenantDb.run(principal.tenantId, async (tx) => {
      const tenant = await this.tenants.find(tx);
      return { tenant, overrides: await this.settings.overrides(tx) };
    });
    if (!head.tenant) throw AppError.notFound('tenant');
    yield JSON.stringify({
      type: 'tenant',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      id: head.tenant.id,
      name: head.tenant.name,
      created_at: head.tenant.created_at.toISOString(),
      exported_at: now.toISOString(),
    });
    yield JSON.stringify({ type: 'settings', lifecycle: head.overrides });

    let afterMind: string | undefined;
    for (;;) {
      const minds = await this.tenantDb.run(principal.tenantId, (tx) => this.minds.page(tx, afterMind, EXPORT_BATCH));
      for (const mind of minds) {
        yield JSON.stringify({ type: 'mind', ...mindView(mind) });
        let afterMemory: string | undefined;
        for (;;) {
          const batch = await this.tenantDb.run(principal.tenantId, async (tx) => {
            const memories = await this.memories.pageOfMind(tx, mind.id, afterMemory, EXPORT_BATCH);
            return { memories, versions: await this.versions.forMemories(tx, memories.map((m) => m.id)) };
          });
          const byMemory = new Map<string, typeof batch.versions>();
          for (const v of batch.versions) {
            const list = byMemory.get(v.memory_id) ?? [];
            list.push(v);
            byMemory.set(v.memory_id, list);
          }
          for (const memory of batch.memories) {
            yield JSON.stringify({ type: 'memory', ...memoryView(memory) });
            for (const v of byMemory.get(memory.id) ?? []) {
              yield JSON.stringify({ type: 'memory_version', memory_id: v.memory_id, mind_id: v.mind_id, ...versionView(v) });
            }
          }
          if (batch.memories.length < EXPORT_BATCH) break;
          afterMemory = batch.memories[batch.memories.length - 1]?.id;
        }
      }
      if (minds.length < EXPORT_BATCH) break;
      afterMind = minds[minds.length - 1]?.id;
    }
  }
}

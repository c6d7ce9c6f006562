import { Injectable } from '@nestjs/common';
import type { Insertable } from 'kysely';
import { LifecycleSettings, LifecycleSettingsError, MEMORY_COLUMNS, TenantDb, newId, type MemoryRow, type MemoryVersionsTable, type TenantTx } from '@engram/db';
import { DEFAULT_MEMORY_TYPE, contentHash, normalizeTags } from '@engram/memory';
import type { UserPrincipal } from '../auth/principal';
import type { MemoryLine, MemoryVersionLine } from './data-rights.dto';
import { lineError, parseImportFile, type ParsedImport } from './import-file';

/** Memories per statement of the import. */
const IMPORT_CHUNK = 500;


/** JSON with object keys sorted, so that jsonb's reordering does not look like a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const ms = (v: Date | string | null | undefined): number | null => (v === null || v === undefined ? null : new Date(v).getTime());

/** What a person wrote into a memory: when these match the file, the import leaves the memory alone. */
function sameContent(row: MemoryRow, line: MemoryLine): boolean {
  return (
    row.content === line.content &&
    canonical(row.tags) === canonical(normalizeTags(line.tags)) &&
    row.priority === line.priority &&
    row.source === line.source &&
    row.verified === line.verified &&
    row.confidence === line.confidence &&
    ms(row.expires_at) === ms(line.expires_at) &&
    (line.occurred_at === undefined || ms(row.occurred_at) === ms(line.occurred_at)) &&
    row.memory_type === (line.memory_type ?? DEFAULT_MEMORY_TYPE[line.category]) &&
    canonical(row.payload) === canonical(line.payload) &&
    canonical(row.source_refs) === canonical(line.source_refs) &&
    row.temporal_context === line.temporal_context &&
    row.temporal_position === line.temporal_position
  );
}

export interface ImportResult {
  minds: { created: number; matched: number };
  memories: { created: number; updated: number; unchanged: number };
  versions: { created: number };
  settings: 'replaced' | 'unchanged' | 'absent';
}

/** What a person writes into a memory: the same fields in a new memory and in an import's update. */
function writtenFields(m: MemoryLine) {
  return {
    content: m.content,
    content_hash: contentHash(m.content),
    tags: normalizeTags(m.tags),
    priority: m.priority,
    source: m.source,
    verified: m.verified,
    confidence: m.confidence,
    expires_at: m.expires_at,
    memory_type: m.memory_type ?? DEFAULT_MEMORY_TYPE[m.category],
    payload: JSON.stringify(m.payload),
    source_refs: m.source_refs,
    temporal_context: m.temporal_context,
    temporal_position: m.temporal_position,
  };
}

type VersionFields = Pick<Insertable<MemoryVersionsTable>, 'category' | 'key' | 'content' | 'tags' | 'priority' | 'source' | 'verified' | 'confidence' | 'expires_at'>;

/** The fields of a memory a version records. */
function versionFields(v: VersionFields): VersionFields {
  return { category: v.category, key: v.key, content: v.content, tags: v.tags, priority: v.priority, source: v.source, verified: v.verified, confidence: v.confidence, expires_at: v.expires_at };
}

/**
 * Data rights (issue 8): a TenantExport file imported into a tenant, all or nothing, for its
 * owner (the controller checks).
 */
@Injectable()
export class TenantImport {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
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
    const parsed = parseImportFile(text);
    try {
      return await this.tenantDb.run(principal.tenantId, (tx) => this.apply(tx, principal, parsed, now));
    } catch (error) {
      if (error instanceof LifecycleSettingsError && parsed.settings) {
        const first = error.problems[0];
        throw lineError(parsed.settings.line, `lifecycle.${first?.path ?? ''}`, first?.message ?? 'is not a valid lifecycle config');
      }
      throw error;
    }
  }

  private async apply(tx: TenantTx, principal: UserPrincipal, file: ParsedImport, now: Date): Promise<ImportResult> {
    const result: ImportResult = {
      minds: { created: 0, matched: 0 },
      memories: { created: 0, updated: 0, unchanged: 0 },
      versions: { created: 0 },
      settings: 'absent',
    };

    // Settings first: a change of strength rescales the memories already there, not the imported ones.
    if (file.settings) {
      const before = await this.settings.overrides(tx);
      if (canonical(before) === canonical(file.settings.lifecycle)) result.settings = 'unchanged';
      else {
        await this.settings.replace(tx, file.settings.lifecycle);
        result.settings = 'replaced';
      }
    }

    // Minds: by id, then by name, else created with the file's id.
    const mindIdOf = new Map<string, string>();
    for (const mind of file.minds) {
      const existing = await tx.trx
        .selectFrom('minds')
        .select(['id', 'name'])
        .where('tenant_id', '=', tx.tenantId)
        .where((eb) => eb.or([eb('id', '=', mind.id), eb('name', '=', mind.name)]))
        .execute();
      const match = existing.find((m) => m.id === mind.id) ?? existing.find((m) => m.name === mind.name);
      if (match) {
        mindIdOf.set(mind.id, match.id);
        result.minds.matched += 1;
      } else {
        await tx.trx
          .insertInto('minds')
          .values({ tenant_id: tx.tenantId, id: mind.id, name: mind.name, description: mind.description ?? null })
          .execute();
        mindIdOf.set(mind.id, mind.id);
        result.minds.created += 1;
      }
    }

    for (let start = 0; start < file.memories.length; start += IMPORT_CHUNK) {
      const chunk = file.memories.slice(start, start + IMPORT_CHUNK);
      const target = (m: MemoryLine) => mindIdOf.get(m.mind_id) as string;
      const existing = await tx.trx
        .selectFrom('memories')
        .select(MEMORY_COLUMNS)
        .where('tenant_id', '=', tx.tenantId)
        .where((eb) =>
          eb(
            eb.refTuple('mind_id', 'category', 'key'),
            'in',
            chunk.map((m) => eb.tuple(target(m), m.category, m.key)),
          ),
        )
        .forUpdate()
        .execute();
      const byKey = new Map(existing.map((r) => [`${r.mind_id}/${r.category}/${r.key}`, r]));
      const taken = new Set(
        (
          await tx.trx
            .selectFrom('memories')
            .select('id')
            .where('tenant_id', '=', tx.tenantId)
            .where('id', 'in', chunk.map((m) => m.id))
            .execute()
        ).map((r) => r.id),
      );

      const inserts: Parameters<typeof this.insertMemories>[1] = [];
      for (const m of chunk) {
        const mindId = target(m);
        const row = byKey.get(`${mindId}/${m.category}/${m.key}`);
        if (!row) {
          inserts.push({ line: m, mindId, id: taken.has(m.id) ? newId() : m.id });
        } else if (sameContent(row, m)) {
          result.memories.unchanged += 1;
        } else {
          await this.updateMemory(tx, principal, row, m, now);
          result.memories.updated += 1;
        }
      }
      if (inserts.length > 0) {
        result.versions.created += await this.insertMemories(tx, inserts, file.versions, principal, now);
        result.memories.created += inserts.length;
      }
    }
    return result;
  }

  /** Inserts new memories with their history. @returns the number of versions stored. */
  private async insertMemories(
    tx: TenantTx,
    items: { line: MemoryLine; mindId: string; id: string }[],
    versions: Map<string, MemoryVersionLine[]>,
    principal: UserPrincipal,
    now: Date,
  ): Promise<number> {
    await tx.trx
      .insertInto('memories')
      .values(
        items.map(({ line: m, mindId, id }) => ({
          tenant_id: tx.tenantId,
          id,
          mind_id: mindId,
          category: m.category,
          key: m.key,
          ...writtenFields(m),
          occurred_at: m.occurred_at ?? now,
          created_at: m.created_at ?? now,
          updated_at: m.updated_at ?? now,
          version: m.version,
          layer: m.layer ?? 'long_term',
          importance_score: m.importance_score,
          initial_retention: m.initial_retention,
          current_retention: m.current_retention,
          strength_days: m.strength_days,
          last_reviewed: m.last_reviewed,
          review_schedule: m.review_schedule,
          next_review: m.next_review,
          review_count: m.review_count,
          access_count: m.access_count,
          last_accessed: m.last_accessed,
          consolidation_score: m.consolidation_score,
          forgotten_at: m.forgotten_at,
          storage_location: m.storage_location,
          tier: m.tier,
          association_graph: JSON.stringify(m.association_graph),
          semantic_tags: m.semantic_tags,
          retention_at: m.retention_at,
          importance_source: m.importance_source,
          emotional_weight: m.emotional_weight,
          hippocampus_dependency: m.hippocampus_dependency,
          synaptic_consolidated: m.synaptic_consolidated,
          // Stored in full; the tiering sweep compacts cold ones again. The backfill embeds them,
          // except archived ones, which stay out of the vector index until used.
          compacted: false,
          content_z: null,
          embedding: null,
          embedding_model: null,
          embedding_status: m.tier === 'archive' ? ('archived' as const) : ('pending' as const),
          embedded_at: null,
        })),
      )
      .execute();

    const rows: Insertable<MemoryVersionsTable>[] = items.flatMap(({ line: m, mindId, id }): Insertable<MemoryVersionsTable>[] => {
      const history = versions.get(m.id) ?? [];
      // A hand-written file without history: the memory's state is its first version.
      if (history.length === 0) {
        return [
          {
            tenant_id: tx.tenantId,
            memory_id: id,
            version: m.version,
            mind_id: mindId,
            change: 'create' as const,
            ...versionFields({ ...m, tags: normalizeTags(m.tags) }),
            actor_type: 'user' as const,
            actor_id: principal.userId,
            created_at: now,
          },
        ];
      }
      return history.map((v) => ({
        tenant_id: tx.tenantId,
        memory_id: id,
        version: v.version,
        mind_id: mindId,
        change: v.change,
        ...versionFields(v),
        actor_type: v.actor_type,
        actor_id: v.actor_id,
        created_at: v.created_at,
      }));
    });
    for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
      await tx.trx.insertInto('memory_versions').values(rows.slice(i, i + IMPORT_CHUNK)).execute();
    }
    return rows.length;
  }

  /** The file's content for an existing memory whose content differs: a new version by the importer. */
  private async updateMemory(tx: TenantTx, principal: UserPrincipal, row: MemoryRow, m: MemoryLine, now: Date): Promise<void> {
    const contentChanged = row.content !== m.content;
    const updated = await tx.trx
      .updateTable('memories')
      .set({
        ...writtenFields(m),
        ...(m.occurred_at ? { occurred_at: m.occurred_at } : {}),
        updated_at: now,
        version: row.version + 1,
        ...(contentChanged
          ? { compacted: false, content_z: null, embedding: null, embedded_at: null, embedding_status: row.tier === 'archive' ? ('archived' as const) : ('pending' as const) }
          : {}),
      })
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', row.id)
      .returning(['version', 'tags', 'expires_at'])
      .executeTakeFirstOrThrow();
    await tx.trx
      .insertInto('memory_versions')
      .values({
        tenant_id: tx.tenantId,
        memory_id: row.id,
        version: updated.version,
        mind_id: row.mind_id,
        change: 'update',
        ...versionFields({ ...m, category: row.category, key: row.key, tags: updated.tags, expires_at: updated.expires_at }),
        actor_type: 'user',
        actor_id: principal.userId,
        created_at: now,
      })
      .execute();
  }
}

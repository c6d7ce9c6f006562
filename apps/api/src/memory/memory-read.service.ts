import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, CLOCK, type AppConfig, type Clock } from '@engram/config';
import { AssociationsRepository, MemoriesRepository, MemoryVersionsRepository, TenantDb, type AssociationCursor, type MemoryFilter, type MemoryRow, type TenantTx } from '@engram/db';
import { formatRecall, generalisationLinks, LINK_RELATIONS, normalizeTags, packRecall, parseDuration, type MemoryCategory, type MemoryLayer, type MemoryPriority, type MemoryTier } from '@engram/memory';
import { countTokens } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import { AccessRecorder, AppError, HybridSearch, LifecycleSettings, MindAccess, soughtText } from '@engram/services';
import { z } from 'zod';
import { decodeCursor, decodeKeyCursor, encodeCursor, encodeKeyCursor, isUuid } from '../common/ids';
import type { MemoryScope } from './memory-scope';
import { associationView, memoryView, versionView } from './memory.view';
import { retentionView } from './retention.view';
import type { AssociationsQuery, RecallQuery, SearchQuery } from './memory.dto';

/** A links page's cursor: the last link's weight, relation and other memory (the list's order). */
const LINK_CURSOR = z.tuple([z.number().min(0).max(1), z.enum(LINK_RELATIONS), z.string().refine(isUuid)]);

/** Memories a budgeted or question recall chooses from. */
const RECALL_CANDIDATES = 200;
/** Recall's entries without `limit` or `max_tokens`. */
const RECALL_DEFAULT_LIMIT = 100;

/**
 * How long a large mind's (LARGE_MIND_MEMORIES) recall header counts are reused (ms): they count
 * every memory of the mind (seed 002's "N total (x verified, y unverified)"), 89 ms at 300 000
 * (bench/RESULTS.md, "Recall's order through an index"), while the rest of a recall reads only
 * what it shows. Smaller minds are counted on every recall, exactly.
 */
export const RECALL_COUNTS_TTL_MS = 60_000;

export interface ListQuery {
  category?: MemoryCategory;
  tag?: string[];
  priority?: MemoryPriority;
  layer?: MemoryLayer;
  tier?: MemoryTier;
  include_expired: boolean;
  limit: number;
  cursor?: string;
}

/**
 * Reads of memories: by id, lists, tag look-up, full-text search, expiring soon, history and
 * the plain-text recall (seed 002). Expired memories are hidden from lists, search and recall
 * from their `expires_at` on; they stay in the database and remain readable by id.
 *
 * A GET by id, each search hit and each recall entry is an access (docs/design.md §5): one set-based
 * statement per request records them (count, due review, reinforcement, promotion). Lists,
 * tag look-ups, history, retention views and a memory's links only look.
 */
@Injectable()
export class MemoryReadService {
  /** Large minds' recall header counts, by `tenant:mind` (RECALL_COUNTS_TTL_MS). */
  private readonly largeMindCounts = new LRUCache<string, { total: number; verified: number }>({ max: 10_000, ttl: RECALL_COUNTS_TTL_MS });

  constructor(
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
    private readonly versions: MemoryVersionsRepository,
    private readonly links: AssociationsRepository,
    private readonly settings: LifecycleSettings,
    private readonly hybrid: HybridSearch,
    private readonly accesses: AccessRecorder,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One memory, after recording this read as an access (not for a request that only looks: HEAD). @throws AppError 404 */
  async get(scope: MemoryScope, id: string) {
    const config = await this.settings.forTenant(scope.tenantId);
    const [row] = await this.tenantDb.run(
      scope.tenantId,
      async (tx) => {
        await this.minds.require(tx, scope);
        if (scope.looksOnly) {
          const found = await this.memories.findById(tx, scope.mindId, id);
          return found ? this.accesses.seen(scope.tenantId, [found], config) : [];
        }
        return this.accesses.access(tx, scope.mindId, [id], this.clock.now(), config);
      },
      { durable: false },
    );
    if (!row) throw AppError.notFound('memory');
    return memoryView(row);
  }

  /** A page of memories, newest first: `{items, next_cursor}` (null on the last page). */
  async list(scope: MemoryScope, query: ListQuery) {
    const config = await this.settings.forTenant(scope.tenantId);
    const after = decodeCursor(query.cursor);
    const filter: MemoryFilter = {
      category: query.category,
      priority: query.priority,
      layer: query.layer,
      tier: query.tier,
      tags: query.tag ? normalizeTags(query.tag) : undefined,
      activeAt: query.include_expired ? undefined : this.clock.now(),
    };
    const rows = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.memories.list(tx, scope.mindId, filter, { after, limit: query.limit + 1 });
    });
    const page = this.accesses.seen(scope.tenantId, rows.slice(0, query.limit), config);
    const last = page[page.length - 1];
    return { items: page.map(memoryView), next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
  }

  /**
   * Hybrid search (docs/design.md §6): full text and vectors fused, weighted by retention, importance and
   * priority; expired memories left out, soft-forgotten ones ranked down. Hits are accesses and
   * are answered with that access counted.
   */
  async search(scope: MemoryScope, query: SearchQuery) {
    const now = this.clock.now();
    const config = await this.settings.forTenant(scope.tenantId);
    // Embedded is what the query looks for: in `all` mode, its words without the exclusions.
    const sought = soughtText(query);
    const vector = sought.trim() === '' ? null : await this.hybrid.queryVector(sought);
    const filter: MemoryFilter = {
      category: query.category,
      priority: query.priority,
      tags: query.tag ? normalizeTags(query.tag) : undefined,
      memoryType: query.memory_type,
      layer: query.layer,
      tier: query.tier,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      verified: query.verified,
      activeAt: now,
      mustMatch: query.mode === 'all' ? query.q : undefined,
    };
    const hits = await this.tenantDb.run(
      scope.tenantId,
      async (tx) => {
        // A Mind Key proved its mind exists; an X-Mind-Id header is checked only if nothing is
        // found (a foreign or missing mind finds nothing, and must answer 404).
        const found = await this.hybrid.search(tx, scope.mindId, { q: query.q, mode: query.mode, vector, filter, limit: query.limit }, config, { access: !scope.looksOnly });
        if (found.length === 0 && scope.actor.type !== 'mind_key') await this.minds.require(tx, scope);
        return found;
      },
      { durable: false },
    );
    return {
      items: hits.map((h) => ({ ...memoryView(h.row), score: h.score, ...(query.explain ? { explain: h.explain } : {}) })),
    };
  }

  /** Memories that expire within the window (`7d`, `12h`, ...), soonest first. */
  async expiring(scope: MemoryScope, query: { within: string; limit: number }) {
    const windowMs = parseDuration(query.within);
    if (windowMs === undefined) throw AppError.badField('within', 'must look like 30m, 12h, 7d or 2w');
    const now = this.clock.now();
    const rows = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.memories.expiring(tx, scope.mindId, now, new Date(now.getTime() + windowMs), query.limit);
    });
    return { items: rows.map(memoryView) };
  }

  /** The retention card and 30-day forecast of a memory; reading it is not an access. @throws AppError 404 */
  async retention(scope: MemoryScope, id: string) {
    const now = this.clock.now();
    const config = await this.settings.forTenant(scope.tenantId);
    const row = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.memories.findById(tx, scope.mindId, id);
    });
    if (!row) throw AppError.notFound('memory');
    return retentionView(this.accesses.seen(scope.tenantId, [row], config)[0] as MemoryRow, now, config);
  }

  /** Every version of a memory, newest first. @throws AppError 404 */
  async history(scope: MemoryScope, id: string) {
    const rows = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      if (!(await this.memories.findById(tx, scope.mindId, id))) throw AppError.notFound('memory');
      return this.versions.list(tx, scope.mindId, id);
    });
    return { memory_id: id, items: rows.map(versionView) };
  }

  /**
   * A page of a memory's links (docs/design.md §6.8; seed 000 associations): its association
   * graph both ways and its generalisation links, strongest first, `{memory_id, items:
   * [{relation, weight 0..1, via, direction, created_at, memory: {id, category, key, content,
   * memory_type, occurred_at}}], next_cursor}` (null on the last page). Not an access, of it or
   * of the memories it links to.
   *
   * @throws AppError 404 for a memory not in the scope's mind (unknown, another mind's or
   *   tenant's); 400 naming `cursor` for one this endpoint did not issue
   */
  async associations(scope: MemoryScope, id: string, query: AssociationsQuery) {
    const cursor = decodeKeyCursor(query.cursor, LINK_CURSOR);
    const after: AssociationCursor | undefined = cursor && { weight: cursor[0], relation: cursor[1], memory_id: cursor[2].toLowerCase() };
    const rows = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      const memory = await this.memories.findById(tx, scope.mindId, id);
      if (!memory) throw AppError.notFound('memory');
      const generalisations = { links: generalisationLinks(memory.association_graph, memory.id), created: memory.created_at };
      return this.links.list(tx, scope.mindId, id, { limit: query.limit + 1, relation: query.relation, after, generalisations });
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      memory_id: id,
      items: page.map(associationView),
      next_cursor: rows.length > query.limit && last ? encodeKeyCursor([last.weight, last.relation, last.memory_id]) : null,
    };
  }

  /**
   * The mind's recall as plain text in seed 002's layout (docs/design.md §6). Without `q`: critical → low,
   * then newest. With `q`: the critical memories first, then the memories most relevant to the
   * question (hybrid search), expired and forgotten ones left out. With `max_tokens`: as many
   * entries as fit in that many tokens (o200k_base), the header included, and at most `limit`
   * (default 200); else `limit` entries (default 100).
   * Every entry shown is an access. In a large mind (`LARGE_MIND_MEMORIES`, 10 000 memories or
   * more) the header's counts may be up to `RECALL_COUNTS_TTL_MS` (a minute) old (ours: counting a
   * large mind is the one part of a recall that grows with it).
   */
  async recall(scope: MemoryScope, query: RecallQuery): Promise<{ text: string; tokens: number; entries: number }> {
    const now = this.clock.now();
    const config = await this.settings.forTenant(scope.tenantId);
    const vector = query.q ? await this.hybrid.queryVector(query.q) : null;
    const budget = query.max_tokens;
    return this.tenantDb.run(
      scope.tenantId,
      async (tx) => {
        const mind = await this.minds.require(tx, scope);
        const counts = await this.recallCounts(tx, scope.mindId, now);
        const summary = { mindName: mind.name, at: now, total: counts.total, verified: counts.verified, unverified: counts.total - counts.verified };
        // Both bounds hold when both are given (a tester's find: limit was ignored beside max_tokens).
        const wanted = query.limit ?? (budget ? RECALL_CANDIDATES : RECALL_DEFAULT_LIMIT);
        let ordered: MemoryRow[];
        if (query.q) {
          const critical = await this.memories.recall(tx, scope.mindId, now, RECALL_CANDIDATES, { priority: 'critical' });
          const relevant = await this.hybrid.search(tx, scope.mindId, { q: query.q, mode: 'any', vector, filter: { activeAt: now }, limit: wanted }, config, { access: false });
          const seen = new Set(critical.map((m) => m.id));
          const answers = relevant.map((h) => h.row).filter((m) => m.forgotten_at === null && !seen.has(m.id));
          // Nothing answers the question: the recall order follows the critical ones, rather than a
          // header alone that gives the model no context at all (a newcomer's report).
          const rest = answers.length > 0 ? answers : (await this.memories.recall(tx, scope.mindId, now, wanted)).filter((m) => !seen.has(m.id));
          ordered = [...critical, ...rest];
        } else {
          ordered = await this.memories.recall(tx, scope.mindId, now, wanted);
        }
        ordered = ordered.slice(0, wanted);
        const packed = budget ? packRecall(summary, ordered, budget, countTokens) : { text: formatRecall(summary, ordered), entries: ordered };
        if ('tokens' in packed && packed.tokens > budget!) {
          throw AppError.badField('max_tokens', `must be at least ${packed.tokens}, the size of this mind's recall header`);
        }
        const shown = packed.entries as MemoryRow[];
        if (!scope.looksOnly) await this.accesses.access(tx, scope.mindId, shown.map((r) => r.id), now, config, { rows: shown });
        return { text: packed.text, tokens: 'tokens' in packed ? packed.tokens : countTokens(packed.text), entries: shown.length };
      },
      { durable: false },
    );
  }

  private async recallCounts(tx: TenantTx, mindId: string, at: Date): Promise<{ total: number; verified: number }> {
    const key = `${tx.tenantId}:${mindId}`;
    const cached = this.largeMindCounts.get(key);
    if (cached) return cached;
    const counts = await this.memories.recallCounts(tx, mindId, at);
    if (counts.total >= this.config.LARGE_MIND_MEMORIES) this.largeMindCounts.set(key, counts);
    return counts;
  }
}

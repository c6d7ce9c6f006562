import { sql, type RawBuilder } from 'kysely';
import { websearchText, type MemoryCategory, type MemoryLayer, type MemoryPriority, type MemoryTier, type MemoryType } from '@engram/memory';
import { notExpiredSql } from './lifecycle-sql';

/**
 * What lists, tag look-ups and search narrow a mind's memories by (docs/api.md): one filter
 * and one SQL builder for all of them. Tags are already normalised (lower-case).
 */
export interface MemoryFilter {
  category?: MemoryCategory;
  /** Every one of these tags. */
  tags?: string[];
  priority?: MemoryPriority;
  memoryType?: MemoryType;
  layer?: MemoryLayer;
  tier?: MemoryTier;
  /** occurred_at ≥ from */
  from?: Date;
  /** occurred_at < to */
  to?: Date;
  verified?: boolean;
  /** Leave out memories expired at this instant. */
  activeAt?: Date;
  /** Web-search syntax every result must match (search `mode=all`: the query's words are a constraint). */
  mustMatch?: string;
}

/** The filter as one SQL condition over the unqualified columns of `memories` (`true` when empty). */
export function memoryFilterSql(f: MemoryFilter): RawBuilder<boolean> {
  const parts: RawBuilder<unknown>[] = [];
  if (f.activeAt) parts.push(notExpiredSql(f.activeAt));
  if (f.category) parts.push(sql`category = ${f.category}`);
  if (f.priority) parts.push(sql`priority = ${f.priority}`);
  if (f.tags && f.tags.length > 0) parts.push(sql`tags @> ${f.tags}::text[]`);
  if (f.memoryType) parts.push(sql`memory_type = ${f.memoryType}`);
  if (f.layer) parts.push(sql`layer = ${f.layer}`);
  if (f.tier) parts.push(sql`tier = ${f.tier}`);
  if (f.from) parts.push(sql`occurred_at >= ${f.from}::timestamptz`);
  if (f.to) parts.push(sql`occurred_at < ${f.to}::timestamptz`);
  if (f.verified !== undefined) parts.push(sql`verified = ${f.verified}`);
  if (f.mustMatch !== undefined) parts.push(sql`search_vector @@ ${websearchSql(f.mustMatch)}`);
  return parts.length === 0 ? sql<boolean>`true` : sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

/**
 * Whether the filter leaves out memories a search's words may match (any part but the expiry and
 * `mustMatch`, which is the match itself): the text branch then matches within it (retrieval-sql
 * `textSql`).
 */
export function narrowsMatch(f: MemoryFilter): boolean {
  const { activeAt: _activeAt, mustMatch: _mustMatch, tags, ...rest } = f;
  return (tags !== undefined && tags.length > 0) || Object.values(rest).some((v) => v !== undefined);
}

/**
 * `q` as a tsquery in web-search syntax (`all` mode: every word, "phrases", -exclusions, or);
 * libs/memory websearchText. A Korean word is a prefix (`'남편':*`), as the text branch's scoring
 * reads it (libs/memory hangulPrefix): Korean writes a particle onto the word ("남편은"), and
 * `q=남편&mode=all` found nothing that `mode=any` found (a newcomer's report).
 */
export function websearchSql(q: string): RawBuilder<unknown> {
  return sql`regexp_replace(websearch_to_tsquery('english', engram_cjk_bigrams(engram_search_text(${websearchText(q)})))::text, '''([\\uac00-\\ud7a3]+)''', '''\\1'':*', 'g')::tsquery`;
}

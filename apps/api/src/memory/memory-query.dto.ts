import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { DURATION_PATTERN, LINK_RELATIONS, MEMORY_CATEGORIES, MEMORY_LAYERS, MEMORY_PRIORITIES, MEMORY_TIERS, MEMORY_TYPES, TAGS_MAX, TAG_MAX_LENGTH } from '@engram/memory';

import { booleanParam, enumParam, isoDateTime, limitParam, optionalLimitParam, once, tagFilter, textParam } from '../common/zod-fields';

// Query strings of the memory API's reads (list, by tag, search, expiring, recall): values arrive
// as text and are parsed here, with messages that say the rule (`<field>: <rule>`).

const queryCategory = enumParam(MEMORY_CATEGORIES);
const queryPriority = enumParam(MEMORY_PRIORITIES);

export const ListMemoryQuerySchema = z
  .object({
    category: queryCategory.optional(),
    tag: tagFilter(TAGS_MAX, TAG_MAX_LENGTH).optional(),
    priority: queryPriority.optional(),
    layer: enumParam(MEMORY_LAYERS).optional(),
    tier: enumParam(MEMORY_TIERS).optional(),
    include_expired: booleanParam.default(false),
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
  })
  .strict();
export class ListMemoryQueryDto extends createZodDto(ListMemoryQuerySchema) {}

export const ByTagQuerySchema = ListMemoryQuerySchema.omit({ tag: true }).extend({ tag: tagFilter(TAGS_MAX, TAG_MAX_LENGTH) });
export class ByTagQueryDto extends createZodDto(ByTagQuerySchema) {}

const timeParam = once(isoDateTime);

export const SearchQuerySchema = z
  .object({
    q: textParam(1000, true),
    /** `any`: any word (ranked) with vectors; `all`: web-search syntax, every result must match; `vector`: by meaning only. */
    mode: enumParam(['any', 'all', 'vector'] as const).default('any'),
    category: queryCategory.optional(),
    tag: tagFilter(TAGS_MAX, TAG_MAX_LENGTH).optional(),
    priority: queryPriority.optional(),
    memory_type: enumParam(MEMORY_TYPES).optional(),
    layer: enumParam(MEMORY_LAYERS).optional(),
    tier: enumParam(MEMORY_TIERS).optional(),
    /** occurred_at at or after this instant */
    from: timeParam.optional(),
    /** occurred_at before this instant */
    to: timeParam.optional(),
    verified: booleanParam.optional(),
    explain: booleanParam.default(false),
    limit: limitParam(100, 10),
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { message: 'must be before to', path: ['from'] });
export class SearchQueryDto extends createZodDto(SearchQuerySchema) {}
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

export const ExpiringQuerySchema = z
  .object({
    within: once(
      z
        .string({ message: 'must be text like 7d' })
        .regex(DURATION_PATTERN, { message: 'must be a positive whole number (at most 6 digits) and a unit m, h, d or w, e.g. 7d' }),
    ).default('7d'),
    limit: limitParam(500, 100),
  })
  .strict();
export class ExpiringQueryDto extends createZodDto(ExpiringQuerySchema) {}

export const RecallQuerySchema = z
  .object({
    /** How many entries at most: 100 by default; with max_tokens, as many as fit, at most this many (else at most 200). */
    limit: optionalLimitParam(1000).optional(),
    /** A question: recall then packs the memories most relevant to it (critical ones first). */
    q: textParam(1000).optional(),
    /** A budget in tokens (o200k_base, the encoding of GPT-4o and later) for the whole text. */
    max_tokens: once(
      z
        .string({ message: 'must be a whole number from 20 to 200000' })
        .regex(/^\d{1,6}$/, { message: 'must be a whole number from 20 to 200000' })
        .transform(Number)
        .pipe(z.number().min(20, { message: 'must be a whole number from 20 to 200000' }).max(200_000, { message: 'must be a whole number from 20 to 200000' })),
      { type: 'integer', minimum: 20, maximum: 200_000 },
    ).optional(),
  })
  .strict();
export class RecallQueryDto extends createZodDto(RecallQuerySchema) {}
export type RecallQuery = z.infer<typeof RecallQuerySchema>;

/** `GET /memory/:id/associations`: a page of the memory's links, optionally of one relation. */
export const AssociationsQuerySchema = z
  .object({
    /** Only links of this relation (what the other memory is to this one). */
    relation: enumParam(LINK_RELATIONS).optional(),
    limit: limitParam(100, 20),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
  })
  .strict();
export class AssociationsQueryDto extends createZodDto(AssociationsQuerySchema) {}
export type AssociationsQuery = z.infer<typeof AssociationsQuerySchema>;

import { z } from 'zod';
import {
  CONTENT_MAX_BYTES,
  KEY_MAX_LENGTH,
  KEY_PATTERN,
  MEMORY_CATEGORIES,
  MEMORY_PRIORITIES,
  MEMORY_TYPES,
  TAGS_MAX,
  TAG_MAX_LENGTH,
  normalizeTags,
} from '@engram/memory';
import { hasVisibleText, oneLine, tagText } from '../common/zod-fields';

/**
 * The rules of a memory's fields (seed 002 "필드"; docs/api.md), with messages that say the rule
 * (the API answers `<field>: <rule>`): one definition for every way a memory comes in, the API's
 * writes and a tenant import alike, so nothing is stored that a write would refuse.
 */
export const memoryField = {
  category: z.enum(MEMORY_CATEGORIES, { message: `must be one of ${MEMORY_CATEGORIES.join(', ')}` }),
  priority: z.enum(MEMORY_PRIORITIES, { message: `must be one of ${MEMORY_PRIORITIES.join(', ')}` }),
  memoryType: z.enum(MEMORY_TYPES, { message: `must be one of ${MEMORY_TYPES.join(', ')}` }),
  key: z
    .string({ message: 'must be a string' })
    .max(KEY_MAX_LENGTH, { message: `must be at most ${KEY_MAX_LENGTH} characters` })
    .regex(KEY_PATTERN, { message: 'must be snake_case: a lower-case letter, then lower-case letters, digits or _' }),
  content: z
    .string({ message: 'must be a string' })
    .refine(hasVisibleText, { message: 'must not be empty' })
    .refine((s) => Buffer.byteLength(s, 'utf8') <= CONTENT_MAX_BYTES, { message: `must be at most ${CONTENT_MAX_BYTES} bytes (32 KiB) of UTF-8` }),
  // Counted as stored: repeats (in any case or spacing) are one tag (a tester's find: 20 tags and
  // "T0" beside "t0" were refused though 20 would be kept). The entries themselves are bounded too.
  tags: z
    .array(tagText(TAG_MAX_LENGTH), { message: 'must be an array of strings' })
    .max(10 * TAGS_MAX, { message: `must have at most ${10 * TAGS_MAX} entries` })
    .refine((tags) => normalizeTags(tags).length <= TAGS_MAX, { message: `must have at most ${TAGS_MAX} tags (repeats in another case or spacing count once)` }),
  confidence: z.number({ message: 'must be a number from 0 to 1' }).min(0, { message: 'must be from 0 to 1' }).max(1, { message: 'must be from 0 to 1' }),
  payload: z
    .record(z.string(), z.unknown(), { message: 'must be a JSON object' })
    .refine((p) => Buffer.byteLength(JSON.stringify(p), 'utf8') <= 65_536, { message: 'must be at most 64 KiB as JSON' }),
  sourceRefs: z.array(oneLine(200), { message: 'must be an array of strings' }).max(100, { message: 'must have at most 100 entries' }),
  temporalContext: oneLine(255),
  temporalPosition: z
    .number({ message: 'must be a whole number' })
    .int({ message: 'must be a whole number' })
    .min(0, { message: 'must be 0 or more' })
    .max(2_147_483_647, { message: 'must be at most 2147483647' }),
};

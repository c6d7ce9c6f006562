import { z } from 'zod';
import { INVISIBLE, NOT_ONE_LINE, hasVisibleText, normalizeTag } from '@engram/memory';

export { INVISIBLE_CHARACTERS, NOT_ONE_LINE, hasVisibleText } from '@engram/memory';

// Field rules shared by the request schemas. Messages state the rule; the API answers
// `<field>: <message>`.

const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** An ISO 8601 date-time with a zone, in years 0001-9999 (what PostgreSQL stores). */
export const isoDateTime = z
  .string({ message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-06-28T00:00:00Z' })
  .pipe(z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-06-28T00:00:00Z' }))
  .refine(
    (s) => {
      const t = Date.parse(s);
      // Text that is no date of that form has its own message (above): an expanded year
      // ("+275760-09-13T00:00:00Z") parses in JavaScript but is no ISO 8601 date-time here, and got
      // both messages (a newcomer's).
      return !/^\d{4}-/.test(s) || Number.isNaN(t) || (t >= EARLIEST && t <= LATEST);
    },
    { message: 'must be between 0001-01-01 and 9999-12-31' },
  );

/** Length in characters as people count them (code points, not UTF-16 units). */
export const charLength = (s: string): number => [...s].length;

/** A one-line name: trimmed, 1..max characters, something visible ({@link hasVisibleText}), no control characters or line breaks ({@link NOT_ONE_LINE}). */
export function oneLine(max: number) {
  return z
    .string({ message: 'must be a string' })
    .trim()
    .min(1, { message: 'must not be empty', abort: true })
    // A zero-width space alone was a mind's, a key's or a speaker's name shown as nothing (a newcomer's).
    .refine(hasVisibleText, { message: 'must not be empty', abort: true })
    .refine((s) => charLength(s) <= max, { message: `must be at most ${max} characters` })
    .refine((s) => !NOT_ONE_LINE.test(s), { message: 'must be one line without control characters' });
}

/**
 * A display name ({@link oneLine}) composed first (Unicode NFC), its length counted composed:
 * "Zoë" typed with a combining diaeresis is the name "Zoë" (a mind's name is unique in its
 * tenant; a tester's find), and a name that composing lengthens (U+0958 is two code points
 * composed) is refused naming the field rather than by the database.
 */
export function composedLine(max: number) {
  return z.preprocess((v) => (typeof v === 'string' ? v.normalize('NFC') : v), oneLine(max));
}

/** A tag: 1..max characters (composed), no commas (they separate tags in recall), no control or invisible characters. */
export function tagText(max: number) {
  return z
    .string({ message: 'must be a string' })
    .refine(hasVisibleText, { message: 'must not be empty', abort: true })
    // Counted as stored (lower-cased, composed: libs/memory normalizeTag): "résumé" typed
    // decomposed is 6 characters, not 8; "İ" lower-cases to two ("i̇"), and a tag accepted at 64
    // was stored at 65, which the tenant's own export could not import again (helper 38's).
    .refine((t) => charLength(normalizeTag(t)) <= max, { message: `must be at most ${max} characters` })
    .refine((t) => !NOT_ONE_LINE.test(t) && !t.includes(','), { message: 'must not contain commas or control characters' })
    // Invisible, so "work\u200b" would look like "work" and never match it (a tester's find).
    .refine((t) => !INVISIBLE.test(t), { message: 'must not contain invisible characters (zero-width space, word joiner, byte order mark, soft hyphen)' });
}

/**
 * A query parameter that may appear once (`?limit=1&limit=2` is a mistake worth naming). The
 * OpenAPI document (and the generated client) describes it as `json`, by default the input
 * schema of `schema`: the leading `unknown` that catches repeats would otherwise leave it untyped.
 */
export function once<T extends z.ZodType>(schema: T, json?: Record<string, unknown>) {
  const { $schema: _dialect, ...input } = json ?? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
  return z
    .unknown()
    .superRefine((v, ctx) => {
      if (Array.isArray(v)) ctx.addIssue({ code: 'custom', message: 'must be given once' });
    })
    .pipe(schema)
    .meta(input);
}

/** `limit`: a whole number from 1 to max, written in decimal digits; absent stays absent. */
export function optionalLimitParam(max: number) {
  const rule = `must be a whole number from 1 to ${max}`;
  return once(
    z
      .string({ message: rule })
      .regex(/^\d{1,7}$/, { message: rule })
      .transform(Number)
      .pipe(z.number().int().min(1, { message: rule }).max(max, { message: rule })),
    { type: 'integer', minimum: 1, maximum: max },
  );
}

/** `limit`: a whole number from 1 to max, written in decimal digits; `fallback` when absent. */
export function limitParam(max: number, fallback: number) {
  return optionalLimitParam(max).default(fallback) as unknown as z.ZodDefault<z.ZodNumber>;
}

/** `true` or `false`. */
export const booleanParam = once(z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true'), { type: 'boolean' });

/** An enumerated query parameter given once. */
export function enumParam<const T extends readonly [string, ...string[]]>(values: T) {
  return once(z.enum(values, { message: `must be one of ${values.join(', ')}` }));
}

/** A text query parameter given once, 1..max characters. */
export function textParam(max: number, required = false) {
  return once(
    z
      .string({ message: required ? 'is required' : 'must be text' })
      .trim()
      .min(1, { message: 'must not be empty', abort: true })
      .refine(hasVisibleText, { message: 'must not be empty', abort: true })
      .refine((s) => charLength(s) <= max, { message: `must be at most ${max} characters` }),
  );
}

/** A repeatable tag filter (`?tag=a&tag=b`: all must match). */
export function tagFilter(maxTags: number, maxLength: number) {
  return z
    .union([z.string(), z.array(z.string())], { message: 'is required: one or more tags' })
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(tagText(maxLength)).max(maxTags, { message: `must have at most ${maxTags} tags` }));
}

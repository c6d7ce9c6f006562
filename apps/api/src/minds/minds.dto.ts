import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { NOT_ONE_LINE, charLength, composedLine, hasVisibleText, limitParam, once, oneLine, textParam } from '../common/zod-fields';

const isoDate = z.iso.datetime({ offset: true });

const description = z.string({ message: 'must be a string' }).max(2000, { message: 'must be at most 2000 characters' });

/**
 * The SaaS's own id of the end user a mind remembers (mem0's `user_id`): 1..200 characters as
 * given (not trimmed, not normalised: `alice` and ` alice` would be two users), one line
 * without control characters ({@link NOT_ONE_LINE}), and not `.` or `..`, which no URL can carry
 * as a path segment (clients remove dot segments, RFC 3986 §5.2.4).
 */
export const externalId = z
  .string({ message: 'must be a string' })
  .min(1, { message: 'must not be empty' })
  .refine((s) => charLength(s) <= 200, { message: 'must be at most 200 characters' })
  .refine((s) => !NOT_ONE_LINE.test(s), { message: 'must be one line without control characters' })
  .refine((s) => s.trim() === s, { message: 'must not start or end with white space' })
  .refine(hasVisibleText, { message: 'must not be invisible characters only' })
  .refine((s) => s !== '.' && s !== '..', { message: 'must not be . or .. (a URL cannot carry them)' });

export const CreateMindSchema = z
  .object({
    name: composedLine(200),
    description: description.optional(),
    external_id: externalId.optional(),
  })
  .strict();
export class CreateMindDto extends createZodDto(CreateMindSchema) {}

/** The body of `PUT /v1/minds/by-external-id/:externalId`: used only when the mind is created. */
export const EnsureMindSchema = z
  .object({
    name: composedLine(200).optional(),
    description: description.optional(),
  })
  .strict();
export class EnsureMindDto extends createZodDto(EnsureMindSchema) {}

export const ListMindsQuerySchema = z
  .object({
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
    name: textParam(200).optional(),
    external_id: once(externalId).optional(),
  })
  .strict();
export class ListMindsQueryDto extends createZodDto(ListMindsQuerySchema) {}

export const MindViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  external_id: z.string().nullable().describe("the SaaS's own id of the end user this mind remembers"),
  created_at: isoDate,
  updated_at: isoDate,
});
export class MindViewDto extends createZodDto(MindViewSchema) {}

export const MindListSchema = z.object({ items: z.array(MindViewSchema), next_cursor: z.string().nullable() });
export class MindListDto extends createZodDto(MindListSchema) {}

export const CreateMindKeySchema = z
  .object({
    name: oneLine(200).optional(),
  })
  .strict();
export class CreateMindKeyDto extends createZodDto(CreateMindKeySchema) {}

export const MindKeyViewSchema = z.object({
  id: z.uuid(),
  mind_id: z.uuid(),
  name: z.string(),
  key_prefix: z.string().describe('the first characters of the key, to tell keys apart'),
  created_at: isoDate,
  last_used_at: isoDate.nullable(),
  revoked_at: isoDate.nullable(),
});
export class MindKeyListDto extends createZodDto(z.object({ items: z.array(MindKeyViewSchema) })) {}

export const NewMindKeySchema = MindKeyViewSchema.extend({
  key: z.string().describe('the Mind Key; shown this once, stored only as a hash'),
});
export class NewMindKeyDto extends createZodDto(NewMindKeySchema) {}

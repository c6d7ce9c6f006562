import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { limitParam, once, oneLine, textParam } from '../common/zod-fields';

const isoDate = z.iso.datetime({ offset: true });

export const CreateMindSchema = z
  .object({
    name: oneLine(200),
    description: z.string({ message: 'must be a string' }).max(2000, { message: 'must be at most 2000 characters' }).optional(),
  })
  .strict();
export class CreateMindDto extends createZodDto(CreateMindSchema) {}

export const ListMindsQuerySchema = z
  .object({
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
    name: textParam(200).optional(),
  })
  .strict();
export class ListMindsQueryDto extends createZodDto(ListMindsQuerySchema) {}

export const MindViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
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

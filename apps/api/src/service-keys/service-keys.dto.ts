import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { limitParam, once, oneLine } from '../common/zod-fields';

const isoDate = z.iso.datetime({ offset: true });

/**
 * What a service key may do: `minds:manage` (create, find, list and delete minds, by id or
 * external id), `memories:read` (list, get, search, recall, history, stats of any mind of the
 * tenant), `memories:write` (write, update, delete memories and post conversation messages).
 */
export const SERVICE_KEY_SCOPES = ['minds:manage', 'memories:read', 'memories:write'] as const;

export const CreateServiceKeySchema = z
  .object({
    name: oneLine(200),
    scopes: z
      .array(z.enum(SERVICE_KEY_SCOPES, { message: `must be one of ${SERVICE_KEY_SCOPES.join(', ')}` }), { message: 'must be an array of scopes' })
      .min(1, { message: 'must name at least one scope' })
      .refine((s) => new Set(s).size === s.length, { message: 'must not repeat a scope' }),
  })
  .strict();
export class CreateServiceKeyDto extends createZodDto(CreateServiceKeySchema) {}

export const ListServiceKeysQuerySchema = z
  .object({
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
  })
  .strict();
export class ListServiceKeysQueryDto extends createZodDto(ListServiceKeysQuerySchema) {}

export const ServiceKeyViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.enum(SERVICE_KEY_SCOPES)),
  key_prefix: z.string().describe('the first characters of the key, to tell keys apart'),
  created_at: isoDate,
  last_used_at: isoDate.nullable(),
  revoked_at: isoDate.nullable(),
});
export class ServiceKeyListDto extends createZodDto(z.object({ items: z.array(ServiceKeyViewSchema), next_cursor: z.string().nullable() })) {}

export const NewServiceKeySchema = ServiceKeyViewSchema.extend({
  key: z.string().describe('the service key; shown this once, stored only as a hash'),
});
export class NewServiceKeyDto extends createZodDto(NewServiceKeySchema) {}

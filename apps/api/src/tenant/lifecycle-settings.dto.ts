import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { lifecycleConfigSchema } from '@engram/memory';

/** What the tenant set (any subset of the config, as stored). */
const overrides = z.record(z.string(), z.unknown()).describe('what the tenant set: any subset of the config, nested objects partial');
/** The full config in force: the defaults merged with the overrides (libs/memory `lifecycleConfigSchema`). */
const effective = lifecycleConfigSchema.describe('the full config in force: the defaults merged with the overrides');

/** `GET /tenant/settings/lifecycle`: `{overrides, effective}`. */
export const LifecycleSettingsSchema = z.object({ overrides, effective });
export class LifecycleSettingsDto extends createZodDto(LifecycleSettingsSchema) {}

/**
 * `PUT` and `PATCH /tenant/settings/lifecycle`: the same fields, in the order those routes have
 * always written them (`{effective, overrides}`; the serializer writes a schema's order).
 */
export const SavedLifecycleSettingsSchema = z.object({ effective, overrides });
export class SavedLifecycleSettingsDto extends createZodDto(SavedLifecycleSettingsSchema) {}

import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '@engram/db';
import { charLength, enumParam, limitParam, once } from '../common/zod-fields';

const isoDate = z.iso.datetime({ offset: true });

/** An endpoint URL: the syntax here; the address rules (SSRF) in WebhooksService, which resolves the host. */
const url = z
  .string({ message: 'must be a string' })
  .min(1, { message: 'must not be empty' })
  .max(2048, { message: 'must be at most 2048 characters' });

/** 1..20 event types of WEBHOOK_EVENT_TYPES, each once. */
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }), { message: 'must be an array of event types' })
  .min(1, { message: `must name at least one event type (${WEBHOOK_EVENT_TYPES.join(', ')})` })
  .max(20, { message: 'must name at most 20 event types' })
  .refine((list) => new Set(list).size === list.length, { message: 'must not name an event type twice' });

const description = z
  .string({ message: 'must be a string' })
  .refine((s) => charLength(s) <= 2000, { message: 'must be at most 2000 characters' });

export const CreateWebhookSchema = z
  .object({
    url: url.describe('where events are POSTed: http:// or https://, not on a private or loopback address'),
    events: events.describe('the event types this endpoint receives'),
    description: description.optional(),
  })
  .strict();
export class CreateWebhookDto extends createZodDto(CreateWebhookSchema) {}

export const UpdateWebhookSchema = z
  .object({
    url: url.optional(),
    events: events.optional(),
    enabled: z.boolean({ message: 'must be true or false' }).optional(),
    description: description.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'must change at least one of url, events, enabled, description' });
export class UpdateWebhookDto extends createZodDto(UpdateWebhookSchema) {}

export const ListWebhooksQuerySchema = z
  .object({
    limit: limitParam(200, 50),
    cursor: once(z.string({ message: 'must be a cursor returned by this endpoint' })).optional(),
  })
  .strict();
export class ListWebhooksQueryDto extends createZodDto(ListWebhooksQuerySchema) {}

export const ListDeliveriesQuerySchema = ListWebhooksQuerySchema.extend({
  status: enumParam(['pending', 'succeeded', 'failed'] as const).optional(),
}).strict();
export class ListDeliveriesQueryDto extends createZodDto(ListDeliveriesQuerySchema) {}

export const WebhookViewSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: isoDate,
  updated_at: isoDate,
});
export class WebhookViewDto extends createZodDto(WebhookViewSchema) {}

export const NewWebhookSchema = WebhookViewSchema.extend({
  secret: z.string().describe('the signing secret (whsec_ + base64, Standard Webhooks); shown this once'),
});
export class NewWebhookDto extends createZodDto(NewWebhookSchema) {}

export const WebhookListSchema = z.object({ items: z.array(WebhookViewSchema), next_cursor: z.string().nullable() });
export class WebhookListDto extends createZodDto(WebhookListSchema) {}

export const DeliveryViewSchema = z.object({
  id: z.uuid().describe('the Standard Webhooks message id, sent as webhook-id on every attempt'),
  endpoint_id: z.uuid(),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  payload: z.record(z.string(), z.unknown()).describe('the body sent: {type, timestamp, data}'),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: isoDate.nullable(),
  created_at: isoDate,
  delivered_at: isoDate.nullable(),
});
export class DeliveryViewDto extends createZodDto(DeliveryViewSchema) {}

export const DeliveryListSchema = z.object({ items: z.array(DeliveryViewSchema), next_cursor: z.string().nullable() });
export class DeliveryListDto extends createZodDto(DeliveryListSchema) {}

import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { CONTENT_MAX_BYTES } from '@engram/memory';
import { isoDateTime, oneLine } from '../common/zod-fields';

export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

const message = z
  .object({
    role: z.enum(['user', 'assistant', 'system', 'tool'], { message: 'must be user, assistant, system or tool' }).default('user'),
    /** Who spoke, when there are several people (e.g. a name); defaults to the role. */
    speaker: oneLine(100).optional(),
    content: z
      .string({ message: 'must be a string' })
      .refine((s) => s.trim().length > 0, { message: 'must not be empty' })
      .refine((s) => Buffer.byteLength(s, 'utf8') <= CONTENT_MAX_BYTES, { message: `must be at most ${CONTENT_MAX_BYTES} bytes (32 KiB) of UTF-8` }),
    /** When it was said; past times are processed on that event time. Default: now. */
    occurred_at: isoDateTime.optional(),
    metadata: z
      .record(z.string(), z.unknown(), { message: 'must be a JSON object' })
      .refine((m) => Buffer.byteLength(JSON.stringify(m), 'utf8') <= 16_384, { message: 'must be at most 16 KiB as JSON' })
      .optional(),
    /** The caller's importance (0..1); else the scorer's. */
    importance: z.number({ message: 'must be a number from 0 to 1' }).min(0, { message: 'must be from 0 to 1' }).max(1, { message: 'must be from 0 to 1' }).optional(),
  })
  .strict();

export const AppendMessagesSchema = z
  .object({
    messages: z
      .array(message, { message: 'must be an array of messages' })
      .min(1, { message: 'must hold at least one message' })
      .max(500, { message: 'must hold at most 500 messages' }),
  })
  .strict();
export class AppendMessagesDto extends createZodDto(AppendMessagesSchema) {}

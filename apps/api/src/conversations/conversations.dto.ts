import { isDeepStrictEqual } from 'node:util';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { CONTENT_MAX_BYTES, IMPORTANCE_PATHS, type ConsolidationTrigger } from '@engram/memory';
import { hasVisibleText, isoDateTime, oneLine } from '../common/zod-fields';

/** A message's client_id: letters, digits and `._:-`, 1-200. */
const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
/**
 * A conversation id: as a client_id, but not `.` nor `..`: in a URL path those are dot segments,
 * which HTTP clients resolve away (`/conversations/../messages` reached another route; a tester's find).
 */
export const CONVERSATION_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,200}$/;

const message = z
  .object({
    /**
     * Your id of the message (letters, digits and `._:-`, 1-200): a message whose client_id this
     * conversation already holds is skipped (not stored, not scored, not a repetition), so an
     * agent may post the whole history with every call.
     */
    client_id: z
      .string({ message: 'must be a string' })
      .min(1, { message: 'must not be empty' })
      .max(200, { message: 'must be at most 200 characters' })
      .regex(CLIENT_ID_PATTERN, { message: 'must be letters, digits or ._:-' })
      .optional(),
    role: z.enum(['user', 'assistant', 'system', 'tool'], { message: 'must be user, assistant, system or tool' }).default('user'),
    /** Who spoke, when there are several people (e.g. a name); defaults to the role. */
    speaker: oneLine(100).optional(),
    content: z
      .string({ message: 'must be a string' })
      .refine(hasVisibleText, { message: 'must not be empty', abort: true })
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

/** The same message: its fields equal, an instant however written, metadata whatever its keys' order (helper 38's). */
function sameMessage(a: z.infer<typeof message>, b: z.infer<typeof message>): boolean {
  const at = (m: z.infer<typeof message>) => (m.occurred_at === undefined ? undefined : Date.parse(m.occurred_at));
  return isDeepStrictEqual({ ...a, occurred_at: at(a) }, { ...b, occurred_at: at(b) });
}

/**
 * A client_id names one message: sent twice in one call, the second copy must be the first's
 * (a history re-sent with a line doubled counts once). Two different messages under one id
 * would lose the second silently (the first is stored, the second skipped as held), so they are
 * a 400 naming the second's `client_id` and nothing of the call is stored.
 */
function sameClientIdSameMessage(messages: readonly z.infer<typeof message>[], ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.client_id === undefined) return;
    const seen = first.get(m.client_id);
    if (seen === undefined) return void first.set(m.client_id, i);
    if (!sameMessage(m, messages[seen] as z.infer<typeof message>))
      ctx.addIssue({ code: 'custom', path: [i, 'client_id'], message: `repeats messages[${seen}].client_id with another message: one client_id, one message` });
  });
}

export const AppendMessagesSchema = z
  .object({
    messages: z
      .array(message, { message: 'must be an array of messages' })
      .min(1, { message: 'must hold at least one message' })
      .max(500, { message: 'must hold at most 500 messages' })
      .superRefine(sameClientIdSameMessage),
  })
  .strict();
export class AppendMessagesDto extends createZodDto(AppendMessagesSchema) {}

/**
 * `/consolidate` and `/end` take no options: no body, or `{}`. A field sent there is named in a
 * 400 rather than ignored, so a client that expects an option it does not have finds out.
 */
export class NoOptionsDto extends createZodDto(z.object({}).strict()) {}

// ---- answers (libs/services conversation.types.ts and ConversationStream `view`): the
// serializer (`@ZodResponse`) checks each answer against these, and the OpenAPI document and the
// TypeScript client are typed by them. Fields in the order the service writes them (the
// serializer writes them in the schema's order).

/** What made an STM entry move to long-term memory (libs/memory `ConsolidationTrigger`). */
const CONSOLIDATION_TRIGGERS = ['repetition', 'importance', 'emotion', 'explicit_save', 'sleep_cycle', 'capacity', 'stm_timeout'] as const satisfies readonly ConsolidationTrigger[];
// Every trigger of libs/memory is listed: a new one fails to compile here.
type UnlistedTrigger = Exclude<ConsolidationTrigger, (typeof CONSOLIDATION_TRIGGERS)[number]>;
export const ALL_TRIGGERS_LISTED: [UnlistedTrigger] extends [never] ? true : never = true;
const trigger = z.enum(CONSOLIDATION_TRIGGERS);

/** One consolidation: a new episodic memory, or a near-duplicate reinforced (`ConsolidationOutcome`). */
export const ConsolidationOutcomeSchema = z.object({
  stm_entry_id: z.uuid(),
  trigger,
  score: z.number(),
  /** How many messages the entry held (a chunk holds several). */
  messages: z.number().int(),
  memory_id: z.uuid(),
  key: z.string(),
  status: z.enum(['created', 'reinforced']),
  /** With `LLM_URL` set: the keyed facts the LLM extracted from the entry and upserted; absent otherwise. */
  facts: z
    .array(z.object({ memory_id: z.uuid(), category: z.string().describe('a memory category'), key: z.string(), status: z.enum(['created', 'updated', 'unchanged']) }))
    .optional(),
});

/** `POST /conversations/:conversationId/messages`: what attention, STM and consolidation did (`AppendResult`). */
export const AppendResultSchema = z.object({
  conversation_id: z.string(),
  /** The messages stored by this call, in the order sent (a skipped re-send has none). */
  message_ids: z.array(z.uuid()),
  /** Messages skipped because the conversation already held their client_id. */
  duplicates: z.number().int(),
  attended: z.number().int(),
  rehearsed: z.number().int(),
  /** Messages that repeated a long-term memory and reinforced it at once (they did not enter STM). */
  reinforced: z.array(z.object({ message_id: z.uuid(), memory_id: z.uuid(), key: z.string() })),
  below_attention: z.number().int(),
  discarded: z.number().int(),
  consolidated: z.array(ConsolidationOutcomeSchema),
  /** Entries in the conversation's STM after this call. */
  stm_size: z.number().int(),
  stm_capacity: z.number().int(),
});
export class AppendResultDto extends createZodDto(AppendResultSchema) {}

/** One entry of a conversation's STM with its signals, score and what the time rules say now. */
export const StmEntryViewSchema = z.object({
  id: z.uuid(),
  content: z.string(),
  speaker: z.string().nullable(),
  /** The inbound messages it holds (its `source_refs` on consolidation). */
  message_ids: z.array(z.uuid()),
  importance: z.number(),
  importance_source: z.enum(IMPORTANCE_PATHS),
  emotion: z.number(),
  association: z.number(),
  utility: z.number(),
  mentions: z.number().int(),
  rehearsal_count: z.number().int(),
  decay_factor: z.number(),
  entered_at: isoDateTime,
  last_rehearsed_at: isoDateTime,
  /** Set when this entry is a chunk of consecutive entries. */
  chunk: z.object({ items: z.array(z.string()), pattern: z.string() }).nullable(),
  seconds_in_stm: z.number(),
  consolidation_score: z.number(),
  /** The immediate triggers it meets (repetition, importance, emotion). */
  triggers: z.array(trigger),
  /** What the time rules would do with it now. */
  decision_now: z.enum(['stay', 'consolidate', 'discard']),
});

/** `GET /conversations/:conversationId/stm`. */
export const StmViewSchema = z.object({
  conversation_id: z.string(),
  capacity: z.number().int(),
  as_of: isoDateTime,
  entries: z.array(StmEntryViewSchema),
});
export class StmViewDto extends createZodDto(StmViewSchema) {}

/** `POST /conversations/:conversationId/consolidate`: every STM entry moved to long-term memory. */
export const ConsolidateResultSchema = z.object({ conversation_id: z.string(), consolidated: z.array(ConsolidationOutcomeSchema) });
export class ConsolidateResultDto extends createZodDto(ConsolidateResultSchema) {}

/** `POST /conversations/:conversationId/end`: what each STM entry became when the conversation ended. */
export const EndResultSchema = z.object({
  conversation_id: z.string(),
  consolidated: z.array(ConsolidationOutcomeSchema),
  /** Entries that left STM without a trigger and with a score at or below the threshold. */
  discarded: z.number().int(),
});
export class EndResultDto extends createZodDto(EndResultSchema) {}

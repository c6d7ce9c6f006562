import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MemoriesRepository, TenantDb } from '@engram/db';
import { MEMORY_CATEGORIES, MEMORY_PRIORITIES, MEMORY_TYPES, type MemoryCategory } from '@engram/memory';
import { AppError, ConversationStream, MindAccess } from '@engram/services';
import { ParseIdPipe } from '../common/ids';
import { zodProblems } from '../common/zod-problems';
import { AppendMessagesSchema } from '../conversations/conversations.dto';
import { conversationId } from '../conversations/conversations.controller';
import { MemoryReadService } from '../memory/memory-read.service';
import type { MemoryScope } from '../memory/memory-scope';
import { MemoryWriteService } from '../memory/memory-write.service';
import { ExpiringQuerySchema, RecallQuerySchema, SearchQuerySchema, UpsertMemorySchema } from '../memory/memory.dto';
import type { MemoryView } from '../memory/memory.view';

/** The URI of the recall resource: the plain-text recall of the key's mind. */
export const RECALL_RESOURCE_URI = 'memory://recall';

/** Problems listed in one error, as in the REST API's error answers. */
const MAX_PROBLEMS = 20;

const memoryId = new ParseIdPipe('memory');

/**
 * Validates tool arguments with the REST API's own schema, so every rule and message is the
 * API's. Field names of the REST shape are renamed back to the tool's (`tag` → `tags`).
 *
 * @throws AppError 400 `<field>: <rule>; ...`, exactly like the REST API's 400 message.
 */
function parseAs<T extends z.ZodType>(schema: T, input: unknown, rename: Record<string, string> = {}): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = zodProblems(result.error).map((p) => {
    for (const [from, to] of Object.entries(rename)) {
      if (p.field === from || p.field.startsWith(`${from}[`) || p.field.startsWith(`${from}.`)) {
        return { field: to + p.field.slice(from.length), message: p.message };
      }
    }
    return p;
  });
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : '';
  throw new AppError('bad_request', shown.map((p) => `${p.field}: ${p.message}`).join('; ') + more, shown);
}

/** Query-string form of an optional number or boolean (the REST schemas read query strings). */
const asParam = (value: number | boolean | undefined): string | undefined => (value === undefined ? undefined : String(value));

/** Drops undefined members, so a REST schema's defaults apply and `.strict()` sees only given fields. */
function defined<T extends Record<string, unknown>>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const json = (value: unknown): CallToolResult => text(JSON.stringify(value));

/** The compact form of a memory in tool answers. */
function compact(m: MemoryView & { score?: number }) {
  return {
    id: m.id,
    category: m.category,
    key: m.key,
    content: m.content,
    tags: m.tags,
    priority: m.priority,
    verified: m.verified,
    ...(m.score === undefined ? {} : { score: Number(m.score.toFixed(4)) }),
    expires_at: m.expires_at,
    updated_at: m.updated_at,
  };
}

const CATEGORY_TEXT = `one of ${MEMORY_CATEGORIES.join(', ')}`;
const PRIORITY_TEXT = `one of ${MEMORY_PRIORITIES.join(', ')}`;

/**
 * Builds the MCP server of one Mind Key's request: tools and the recall resource bound to its
 * memory scope. Every tool calls the same services as the REST API (so validation, tenancy by
 * RLS through TenantDb, lifecycle rules and error messages are the API's); a failure comes back
 * as a tool error (`isError: true`) whose text is the API's message, e.g.
 * `key: must be snake_case: ...` or `memory not found`.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly writes: MemoryWriteService,
    private readonly reads: MemoryReadService,
    private readonly conversations: ConversationStream,
    private readonly tenantDb: TenantDb,
    private readonly minds: MindAccess,
    private readonly memories: MemoriesRepository,
  ) {}

  create(scope: MemoryScope): McpServer {
    const server = new McpServer(
      { name: 'engram', version: '1.0.0' },
      {
        instructions:
          'Long-term memory of this mind. `recall` (or the resource memory://recall) gives what you know as text for your context; ' +
          '`remember` stores or overwrites a memory by (category, key); `search` finds memories; `forget` deletes one; ' +
          '`list_expiring` shows what expires soon; `append_messages` feeds a conversation to short-term memory.',
      },
    );

    server.registerTool(
      'remember',
      {
        title: 'Remember',
        description:
          'Stores a memory, upserting by (category, key): the same key overwrites the content (the old version stays in history), never a duplicate. ' +
          'Answers {status: created|updated|unchanged, memory: {id, category, key, content, tags, priority, verified, expires_at, updated_at}}. ' +
          'Errors name the field and rule, e.g. "key: must be snake_case: ...", "content: must not be empty".',
        inputSchema: z.strictObject({
          category: z.string().describe(CATEGORY_TEXT),
          key: z.string().describe('snake_case, at most 128 characters; unique per category'),
          content: z.string().describe('the memory itself: non-empty, at most 32 KiB of UTF-8'),
          tags: z.array(z.string()).optional().describe('at most 20 tags of at most 64 characters, no commas; stored lower-case'),
          priority: z.string().optional().describe(`${PRIORITY_TEXT}; default normal`),
          importance: z.number().optional().describe('0..1; when absent the scorer decides'),
          expires_at: z.string().nullable().optional().describe('ISO 8601 date-time with a zone; null clears an expiry'),
        }),
        annotations: { destructiveHint: false, idempotentHint: true },
      },
      (args) =>
        this.run(async () => {
          const input = parseAs(UpsertMemorySchema, defined(args));
          const { memory, status } = await this.writes.upsert(scope, input);
          return json({ status, memory: compact(memory) });
        }),
    );

    server.registerTool(
      'recall',
      {
        title: 'Recall',
        description:
          'The mind\'s memories as plain text for the context (seed 002 layout): critical first, then newest, or with `q` the most relevant to the question; ' +
          'expired and forgotten ones left out. `max_tokens` (20-200000, o200k_base) packs as many whole entries as fit. ' +
          'Errors: "max_tokens: must be a whole number from 20 to 200000", "max_tokens: must be at least N, the size of this mind\'s recall header".',
        inputSchema: z.strictObject({
          q: z.string().optional().describe('a question: recall packs the memories most relevant to it (critical ones first)'),
          max_tokens: z.number().optional().describe('a token budget for the whole text, 20-200000'),
          limit: z.number().optional().describe('without max_tokens: how many entries at most (1-1000, default 100)'),
        }),
        annotations: { readOnlyHint: false },
      },
      (args) =>
        this.run(async () => {
          const query = parseAs(RecallQuerySchema, defined({ q: args.q, max_tokens: asParam(args.max_tokens), limit: asParam(args.limit) }));
          return text((await this.reads.recall(scope, query)).text);
        }),
    );

    server.registerTool(
      'search',
      {
        title: 'Search',
        description:
          'Hybrid search (full text and meaning, weighted by retention, importance and priority); expired memories left out. ' +
          'Answers {items: [{id, category, key, content, tags, priority, verified, score, expires_at, updated_at}]}, best first. ' +
          'Errors name the field, e.g. "q: must not be empty", "limit: must be a whole number from 1 to 100".',
        inputSchema: z.strictObject({
          q: z.string().describe('what to look for, 1-1000 characters'),
          mode: z.enum(['any', 'all', 'vector']).optional().describe('any: any word (default); all: web-search syntax ("phrase", -word, or); vector: by meaning only'),
          limit: z.number().optional().describe('1-100, default 10'),
          category: z.string().optional().describe(CATEGORY_TEXT),
          tags: z.array(z.string()).optional().describe('all must match'),
          priority: z.string().optional().describe(PRIORITY_TEXT),
          memory_type: z.string().optional().describe(`one of ${MEMORY_TYPES.join(', ')}`),
          from: z.string().optional().describe('occurred_at at or after this ISO 8601 instant'),
          to: z.string().optional().describe('occurred_at before this ISO 8601 instant'),
          verified: z.boolean().optional(),
        }),
      },
      (args) =>
        this.run(async () => {
          const query = parseAs(
            SearchQuerySchema,
            defined({ ...args, tags: undefined, tag: args.tags, limit: asParam(args.limit), verified: asParam(args.verified) }),
            { tag: 'tags' },
          );
          const found = await this.reads.search(scope, query);
          return json({ items: found.items.map(compact) });
        }),
    );

    server.registerTool(
      'forget',
      {
        title: 'Forget',
        description:
          'Deletes a memory and its history, named by `id` or by `category` and `key`. Answers {deleted: id}. ' +
          'Errors: "memory not found" (also for ids of other minds or tenants), or the field and rule of a bad category or key.',
        inputSchema: z.strictObject({
          id: z.string().optional().describe('the memory id (UUID)'),
          category: z.string().optional().describe(`with key instead of id: ${CATEGORY_TEXT}`),
          key: z.string().optional().describe('with category instead of id'),
        }),
        annotations: { destructiveHint: true, idempotentHint: false },
      },
      (args) =>
        this.run(async () => {
          const id = await this.memoryIdOf(scope, args);
          await this.writes.delete(scope, id);
          return json({ deleted: id });
        }),
    );

    server.registerTool(
      'list_expiring',
      {
        title: 'List expiring memories',
        description:
          'Memories that expire within the window, soonest first (default 7 days). Answers {items: [{id, category, key, content, tags, priority, verified, expires_at, updated_at}]}. ' +
          'Errors: "within_days: must be a positive whole number ...".',
        inputSchema: z.strictObject({
          within_days: z.number().optional().describe('window in days, a whole number (default 7)'),
          within: z.string().optional().describe('instead of within_days, the REST form: 30m, 12h, 7d or 2w'),
          limit: z.number().optional().describe('1-500, default 100'),
        }),
        annotations: { readOnlyHint: true },
      },
      (args) =>
        this.run(async () => {
          if (args.within !== undefined && args.within_days !== undefined) throw AppError.badField('within', 'give within or within_days, not both');
          const within = args.within_days === undefined ? args.within : `${args.within_days}d`;
          const query = parseAs(ExpiringQuerySchema, defined({ within, limit: asParam(args.limit) }), args.within_days === undefined ? {} : { within: 'within_days' });
          const found = await this.reads.expiring(scope, query);
          return json({ items: found.items.map(compact) });
        }),
    );

    server.registerTool(
      'append_messages',
      {
        title: 'Append conversation messages',
        description:
          'Appends 1-500 messages to a conversation of this mind: each is stored, scored and run through short-term memory; ' +
          'entries pushed out consolidate into long-term memories. Answers {conversation_id, message_ids, attended, rehearsed, below_attention, discarded, consolidated, stm_size, stm_capacity}. ' +
          'Errors name the field, e.g. "messages[0].content: must not be empty", "conversationId: must be 1 to 200 characters ...".',
        inputSchema: z.strictObject({
          conversation_id: z.string().describe('1-200 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"; chosen by the caller'),
          messages: z
            .array(
              z.strictObject({
                role: z.string().optional().describe('user (default), assistant, system or tool'),
                speaker: z.string().optional().describe('who spoke, when there are several people'),
                content: z.string().describe('non-empty, at most 32 KiB of UTF-8'),
                occurred_at: z.string().optional().describe('ISO 8601 date-time with a zone; default now'),
                importance: z.number().optional().describe('0..1; else the scorer decides'),
                metadata: z.record(z.string(), z.unknown()).optional().describe('a JSON object, at most 16 KiB'),
              }),
            )
            .describe('1-500 messages in order'),
        }),
      },
      (args) =>
        this.run(async () => {
          const id = conversationId(args.conversation_id);
          const body = parseAs(AppendMessagesSchema, { messages: args.messages.map((m) => defined(m)) });
          return json(await this.conversations.append(scope, id, body.messages));
        }),
    );

    server.registerResource(
      'recall',
      RECALL_RESOURCE_URI,
      {
        title: 'Recall',
        description: 'The plain-text recall of this mind (critical first, then newest; at most 100 entries), as the recall tool gives without arguments.',
        mimeType: 'text/plain',
      },
      async (uri) => {
        const recall = await this.reads.recall(scope, RecallQuerySchema.parse({}));
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: recall.text }] };
      },
    );

    return server;
  }

  /** The id of the memory `forget` names: by id, or by (category, key) of this mind. @throws AppError 400, 404 */
  private async memoryIdOf(scope: MemoryScope, args: { id?: string; category?: string; key?: string }): Promise<string> {
    const byKey = args.category !== undefined || args.key !== undefined;
    if (args.id !== undefined) {
      if (byKey) throw AppError.badField('id', 'give id, or category and key, not both');
      return memoryId.transform(args.id);
    }
    if (!byKey) throw AppError.badField('id', 'is required (or category and key)');
    const named = parseAs(UpsertMemorySchema.pick({ category: true, key: true }), args);
    const found = await this.tenantDb.run(scope.tenantId, async (tx) => {
      await this.minds.require(tx, scope);
      return this.memories.findByKeyForUpdate(tx, scope.mindId, named.category as MemoryCategory, named.key);
    });
    if (!found) throw AppError.notFound('memory');
    return found.id;
  }

  /**
   * Runs a tool: the API's errors become tool errors with the API's message; anything else is
   * logged and answered as "internal error" (never a stack or SQL text).
   */
  private async run(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) return { content: [{ type: 'text', text: error.message }], isError: true };
      this.logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
      return { content: [{ type: 'text', text: 'internal error' }], isError: true };
    }
  }
}

import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiParam, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { AppError, ConversationStream, type MemoryScope } from '@engram/services';
import { ServiceKeyScopeNeeded } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';
import { CurrentMemoryScope } from '../memory/memory-scope';
import { ConversationLog, MessagePageDto, MessagesQueryDto } from './conversation-log';
import { AppendMessagesDto, AppendResultDto, CONVERSATION_ID_PATTERN, ConsolidateResultDto, EndResultDto, NoOptionsDto, StmViewDto } from './conversations.dto';

export function conversationId(id: string): string {
  if (!CONVERSATION_ID_PATTERN.test(id)) {
    throw AppError.badField('conversationId', 'must be 1 to 200 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-", and not "." nor ".."');
  }
  return id;
}

/**
 * The conversation stream (seed 000, docs/design.md §4): messages enter the sensory register (stored as
 * received), pass attention into short-term memory, and move to long-term memory by
 * consolidation. Same credentials as the memory API (Mind Key, or JWT + X-Mind-Id).
 */
@ApiTags('conversations')
@ApiBearerAuth()
@ApiHeader({ name: 'X-Mind-Id', required: false, description: 'the mind to act on; required with a user JWT or a service key' })
// CONVERSATION_ID_PATTERN, as the document states it.
@ApiParam({
  name: 'conversationId',
  description: 'the caller\'s id of the conversation: 1-200 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-", and not "." nor ".."',
  schema: { type: 'string', minLength: 1, maxLength: 200, pattern: CONVERSATION_ID_PATTERN.source },
})
@Controller({ path: 'conversations', version: '1' })
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationStream,
    private readonly log: ConversationLog,
  ) {}

  /**
   * Appends 1-500 messages: each is stored, scored (caller's `importance`, else the scorer), and
   * enters STM when it passes attention, rehearses an entry it repeats, or is left as chatter.
   * Entries that the time rules or a full buffer push out consolidate (or are discarded).
   * 201 with what happened, including the memories written or reinforced.
   */
  @ServiceKeyScopeNeeded('memories:write')
  @Post(':conversationId/messages')
  @Documented({ summary: 'Append messages to a conversation', errors: [400, 403, 404, 413, 415] })
  @ZodResponse({ status: 201, type: AppendResultDto, description: 'what attention, STM and consolidation did' })
  append(@CurrentMemoryScope() scope: MemoryScope, @Param('conversationId') id: string, @Body() body: AppendMessagesDto) {
    return this.conversations.append(scope, conversationId(id), body.messages);
  }

  /**
   * The conversation's messages as received, oldest first (`occurred_at`, then id), with their
   * `client_id`, speaker, metadata and the importance they were scored: the log the memories'
   * `source_refs` name. `limit` (≤ 200, default 50), `cursor`. Not an access.
   */
  @ServiceKeyScopeNeeded('memories:read')
  @Get(':conversationId/messages')
  @Documented({ summary: "List a conversation's messages", errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MessagePageDto, description: 'a page of the messages, oldest first' })
  messages(@CurrentMemoryScope() scope: MemoryScope, @Param('conversationId') id: string, @Query() query: MessagesQueryDto) {
    return this.log.page(scope, conversationId(id), query);
  }

  /** The conversation's STM now: entries with their signals, consolidation score, triggers and what the time rules say. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get(':conversationId/stm')
  @Documented({ summary: "Get a conversation's short-term memory", errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: StmViewDto, description: "the conversation's STM entries with their signals, score, triggers and decision now" })
  stm(@CurrentMemoryScope() scope: MemoryScope, @Param('conversationId') id: string) {
    return this.conversations.view(scope, conversationId(id));
  }

  /** The explicit save: every STM entry moves to long-term memory now. 200 `{conversation_id, consolidated}`, as `/end` answers. */
  @ServiceKeyScopeNeeded('memories:write')
  @Post(':conversationId/consolidate')
  @Documented({ summary: "Consolidate a conversation's short-term memory now", errors: [400, 403, 404, 413, 415] })
  @HttpCode(200)
  @ApiBody({ type: NoOptionsDto, required: false })
  @ZodResponse({ status: 200, type: ConsolidateResultDto, description: 'what each STM entry became' })
  async consolidate(@CurrentMemoryScope() scope: MemoryScope, @Param('conversationId') id: string, @Body() _options: NoOptionsDto) {
    const cid = conversationId(id);
    return { conversation_id: cid, consolidated: await this.conversations.consolidateAll(scope, cid) };
  }

  /**
   * The conversation has ended: each STM entry is decided now as the time rules would decide it
   * after 30 quiet minutes (it consolidates when a trigger fired or its score is above the
   * threshold, else it is discarded), rather than by the sleep cycle later. STM is empty
   * afterwards. 200 `{conversation_id, consolidated, discarded}`; an empty or unknown conversation
   * answers with nothing done.
   */
  @ServiceKeyScopeNeeded('memories:write')
  @Post(':conversationId/end')
  @Documented({ summary: 'End a conversation: decide its short-term memory now', errors: [400, 403, 404, 413, 415] })
  @HttpCode(200)
  @ApiBody({ type: NoOptionsDto, required: false })
  @ZodResponse({ status: 200, type: EndResultDto, description: 'what each STM entry became, and how many were discarded' })
  async end(@CurrentMemoryScope() scope: MemoryScope, @Param('conversationId') id: string, @Body() _options: NoOptionsDto) {
    const cid = conversationId(id);
    return { conversation_id: cid, ...(await this.conversations.end(scope, cid)) };
  }
}

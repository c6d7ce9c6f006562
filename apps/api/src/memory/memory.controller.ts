import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ZodResponse } from 'nestjs-zod';
import { ServiceKeyScopeNeeded, UsersOnly } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';
import { ParseIdPipe } from '../common/ids';
import { MemoryReadService } from './memory-read.service';
import { CurrentMemoryScope, type MemoryScope } from './memory-scope';
import { MemoryWriteService } from './memory-write.service';
import { ApiIfMatch, IfMatch, versionTag, type VersionPrecondition } from './version-precondition';
import { AppError } from '@engram/services';
import {
  AssociationPageDto,
  AssociationsQueryDto,
  BatchDto,
  BatchResultDto,
  ByTagQueryDto,
  ExpiringQueryDto,
  ListMemoryQueryDto,
  MemoryHistoryDto,
  MemoryListDto,
  MemoryPageDto,
  MemoryViewDto,
  RecallQueryDto,
  RetentionCardDto,
  SearchQueryDto,
  SearchResultDto,
  UpdateMemoryDto,
  UpsertMemoryDto,
} from './memory.dto';

const memoryId = new ParseIdPipe('memory');

/** The answer header that tells a write's outcome apart, as a batch item's `status` does. */
const WRITE_STATUS_HEADER = {
  description: '`updated` (a new version) or `unchanged` (the same content, tags and fields); `created` on a 201',
  schema: { type: 'string' as const, enum: ['created', 'updated', 'unchanged'] },
};
/** The memory's entity tag: its version, for If-Match and If-None-Match (version-precondition.ts). */
const ETAG_HEADER = { description: 'the memory\'s version as an entity tag, e.g. "3"', schema: { type: 'string' as const } };

/**
 * The memory API of seed 002. Agents authenticate with their Mind Key; people with a JWT and
 * the `X-Mind-Id` header. Another tenant's or mind's ids answer 404.
 */
@ApiTags('memory')
@ApiBearerAuth()
@ApiHeader({ name: 'X-Mind-Id', required: false, description: 'the mind to act on; required with a user JWT or a service key' })
@Controller({ path: 'memory', version: '1' })
export class MemoryController {
  constructor(
    private readonly writes: MemoryWriteService,
    private readonly reads: MemoryReadService,
  ) {}

  /**
   * Stores a memory, upserting by (category, key): the same key overwrites the content (the old
   * version stays in history) and never duplicates. 201 when created, 200 when updated or unchanged;
   * the header `X-Write-Status` (`created`, `updated` or `unchanged`) tells the three apart, as the
   * batch's per-item `status` does.
   */
  @ServiceKeyScopeNeeded('memories:write')
  @Post()
  @Documented({ summary: 'Store a memory (upsert by category and key)', errors: [400, 403, 404, 409, 412, 413, 415] })
  @ApiIfMatch("the key's memory has changed since, or does not exist")
  @ZodResponse({ status: 201, type: MemoryViewDto, description: 'created' })
  @ApiResponse({
    status: 200,
    type: MemoryViewDto.Output,
    description: 'an existing key: updated, or unchanged',
    headers: { 'X-Write-Status': WRITE_STATUS_HEADER, ETag: ETAG_HEADER },
  })
  async upsert(@CurrentMemoryScope() scope: MemoryScope, @Body() body: UpsertMemoryDto, @IfMatch() precondition: VersionPrecondition | undefined, @Res({ passthrough: true }) res: Response) {
    const { memory, status } = await this.writes.upsert(scope, body, precondition);
    res.status(status === 'created' ? 201 : 200);
    res.setHeader('X-Write-Status', status);
    res.setHeader('ETag', versionTag(memory.version));
    return memory;
  }

  /** Upserts up to 500 memories in one transaction (imports). 200 with per-item status. */
  @ServiceKeyScopeNeeded('memories:write')
  @Post('batch')
  @Documented({ summary: 'Store up to 500 memories in one transaction', errors: [400, 403, 404, 409, 413, 415] })
  @HttpCode(200)
  @ZodResponse({ status: 200, type: BatchResultDto })
  batch(@CurrentMemoryScope() scope: MemoryScope, @Body() body: BatchDto, @IfMatch() precondition: VersionPrecondition | undefined) {
    // One header cannot name each item's version: refused rather than ignored.
    if (precondition !== undefined) throw AppError.badField('If-Match', 'is not taken by a batch (each item has its own version): use PUT /v1/memory/:id');
    return this.writes.batch(scope, body.items);
  }

  /** Memories newest first, filtered by category, tag (repeatable: all must match), priority, layer and tier. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get()
  @Documented({ summary: 'List memories, newest first', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryPageDto })
  list(@CurrentMemoryScope() scope: MemoryScope, @Query() query: ListMemoryQueryDto) {
    return this.reads.list(scope, query);
  }

  /** Hybrid search: full text and vectors fused (`mode=any`: any word, ranked; `mode=all`: websearch syntax), or `mode=vector`: nearest by meaning only. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get('search')
  @Documented({ summary: 'Search memories (full text and meaning)', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: SearchResultDto })
  search(@CurrentMemoryScope() scope: MemoryScope, @Query() query: SearchQueryDto) {
    return this.reads.search(scope, query);
  }

  /** Memories with a tag (case-insensitive), newest first, paginated like the list. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get('by-tag')
  @Documented({ summary: 'List memories with a tag', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryPageDto })
  byTag(@CurrentMemoryScope() scope: MemoryScope, @Query() query: ByTagQueryDto) {
    return this.reads.list(scope, query);
  }

  /** Memories expiring within `within` (default 7d), soonest first. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get('expiring')
  @Documented({ summary: 'List memories expiring soon', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryListDto })
  expiring(@CurrentMemoryScope() scope: MemoryScope, @Query() query: ExpiringQueryDto) {
    return this.reads.expiring(scope, query);
  }

  /**
   * The mind's memories as plain text for an LLM context, in seed 002's layout: critical first,
   * then newest (or, with `q`, most relevant to the question); expired and forgotten ones left out;
   * `[unverified]` marked; tags shown. `max_tokens` packs as many as fit (o200k_base tokens);
   * `X-Recall-Tokens` and `X-Recall-Entries` say what was sent.
   */
  @ServiceKeyScopeNeeded('memories:read')
  @Get('recall')
  @Documented({ summary: "Recall the mind's memories as text for an LLM context", errors: [400, 403, 404] })
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'plain-text recall', schema: { type: 'string' } })
  async recall(@CurrentMemoryScope() scope: MemoryScope, @Query() query: RecallQueryDto, @Res({ passthrough: true }) res: Response) {
    const recall = await this.reads.recall(scope, query);
    res.setHeader('X-Recall-Tokens', String(recall.tokens));
    res.setHeader('X-Recall-Entries', String(recall.entries));
    return recall.text;
  }

  @ServiceKeyScopeNeeded('memories:read')
  @Get(':id')
  @Documented({ summary: 'Get a memory', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryViewDto })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'the ETag of your copy: 304 while the memory is still at that version' })
  @ApiResponse({ status: 304, description: 'not modified: the memory is still at the version your If-None-Match names (no body)' })
  async get(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string, @Res({ passthrough: true }) res: Response) {
    const memory = await this.reads.get(scope, id);
    res.setHeader('ETag', versionTag(memory.version));
    return memory;
  }

  /**
   * Changes fields of a memory; category and key stay. A new version is recorded when anything
   * differs; the header `X-Write-Status` says `updated` or `unchanged`, as for `POST /memory`.
   * `If-Match: "<version>"` (the `ETag` of your copy, RFC 9110 §13.1.1) makes the change only if
   * nobody changed the memory since: 412 otherwise, nothing written.
   */
  @ServiceKeyScopeNeeded('memories:write')
  @Put(':id')
  @Documented({ summary: 'Update a memory', errors: [400, 403, 404, 409, 412, 413, 415] })
  @ApiIfMatch()
  @ApiResponse({ status: 200, type: MemoryViewDto.Output, description: 'updated, or unchanged', headers: { 'X-Write-Status': WRITE_STATUS_HEADER, ETag: ETAG_HEADER } })
  @ZodResponse({ status: 200, type: MemoryViewDto })
  async update(
    @CurrentMemoryScope() scope: MemoryScope,
    @Param('id', memoryId) id: string,
    @Body() body: UpdateMemoryDto,
    @IfMatch() precondition: VersionPrecondition | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { memory, status } = await this.writes.update(scope, id, body, precondition);
    res.setHeader('X-Write-Status', status);
    res.setHeader('ETag', versionTag(memory.version));
    return memory;
  }

  /** Deletes a memory and its history. 204. `If-Match` as for PUT: 412 if it changed since. */
  @ServiceKeyScopeNeeded('memories:write')
  @Delete(':id')
  @Documented({ summary: 'Delete a memory and its history', errors: [400, 403, 404, 412] })
  @ApiIfMatch()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted' })
  async delete(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string, @IfMatch() precondition: VersionPrecondition | undefined) {
    await this.writes.delete(scope, id, precondition);
  }

  /**
   * The memory's retention card: layer, importance, retention now and at its anchor, strength,
   * review schedule (`{at, done}`), next review, accesses, forgetting thresholds and a 30-day
   * forecast of retention (121 points) for a plot. Not an access.
   */
  @ServiceKeyScopeNeeded('memories:read')
  @Get(':id/retention')
  @Documented({ summary: "Get a memory's retention card and forecast", errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: RetentionCardDto, description: 'retention card with a 30-day forecast' })
  retention(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string) {
    return this.reads.retention(scope, id);
  }

  /**
   * The memory's links (the association graph, docs/design.md §6.8; seed 000 associations): the
   * memories it is similar to, came before or after in its temporal context, shares a rare named
   * thing with (`via`), and its generalisation links (association_graph), each with the relation
   * the other memory is to this one, a weight 0..1 and the other memory in short; strongest
   * first, `limit` (1..100, default 20) a page, `next_cursor` for the next. `relation` keeps one
   * relation. Built in the background: a new or changed memory has none until the association job
   * has run (`GET /v1/memory/stats` counts those as `associations.unlinked`). Not an access.
   */
  @ServiceKeyScopeNeeded('memories:read')
  @Get(':id/associations')
  @Documented({ summary: "List a memory's associations (typed, weighted links to other memories)", errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: AssociationPageDto })
  associations(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string, @Query() query: AssociationsQueryDto) {
    return this.reads.associations(scope, id, query);
  }

  /** Every version of the memory, newest first. */
  @ServiceKeyScopeNeeded('memories:read')
  @Get(':id/history')
  @Documented({ summary: 'List the versions of a memory', errors: [400, 403, 404] })
  @ZodResponse({ status: 200, type: MemoryHistoryDto })
  history(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string) {
    return this.reads.history(scope, id);
  }

  /** Marks the memory verified by a person. JWT only: a Mind Key gets 403 (seed 002 "검증"). */
  @UsersOnly()
  @Post(':id/verify')
  @Documented({
    summary: 'Mark a memory verified by a person',
    errors: [400, { status: 403, description: 'a Mind Key cannot verify (only a person can), or X-Mind-Id names another mind' }, 404, 412],
  })
  @ApiIfMatch()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: MemoryViewDto })
  async verify(@CurrentMemoryScope() scope: MemoryScope, @Param('id', memoryId) id: string, @IfMatch() precondition: VersionPrecondition | undefined, @Res({ passthrough: true }) res: Response) {
    const memory = await this.writes.verify(scope, id, precondition);
    res.setHeader('ETag', versionTag(memory.version));
    return memory;
  }
}

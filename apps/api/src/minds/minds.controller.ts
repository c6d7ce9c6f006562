import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res, type PipeTransform } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { ServiceKeyScopeNeeded, UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type ServiceKeyPrincipal, type UserPrincipal } from '../auth/principal';
import { AppError } from '@engram/services';
import { Documented } from '../common/api-docs';
import { ParseIdPipe } from '../common/ids';
import {
  CreateMindDto,
  CreateMindKeyDto,
  EnsureMindDto,
  externalId,
  ListMindsQueryDto,
  MindKeyListDto,
  MindListDto,
  MindViewDto,
  NewMindKeyDto,
} from './minds.dto';
import { MindsService } from './minds.service';

/** The `:externalId` path parameter. @throws AppError 400 naming `externalId` and its rule. */
class ExternalIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const parsed = externalId.safeParse(value);
    if (!parsed.success) throw AppError.badField('externalId', parsed.error.issues[0]?.message ?? 'is not valid');
    return parsed.data;
  }
}

/**
 * Minds and their Mind Keys. People (JWT): reading needs any role, changing needs owner or
 * admin. A tenant service key with the scope `minds:manage` may create, find, list and delete
 * minds (one per end user, by external id) but never issues Mind Keys. Another tenant's ids
 * answer 404, like ids that do not exist.
 */
@ApiTags('minds')
@ApiBearerAuth()
@Controller({ path: 'minds', version: '1' })
export class MindsController {
  constructor(private readonly minds: MindsService) {}

  /** Creates a mind. 201 with the mind (`id`, `name`, ...); 409 when the name is taken. */
  @UsersOnly('owner', 'admin')
  @ServiceKeyScopeNeeded('minds:manage')
  @Post()
  @Documented({ summary: 'Create a mind', errors: [400, { status: 403, description: 'not an owner or admin (members, Mind Keys, service keys without minds:manage)' }, { status: 409, description: 'the name (or external_id) is taken' }, 413, 415] })
  @ZodResponse({ status: 201, type: MindViewDto })
  create(@CurrentPrincipal() principal: UserPrincipal | ServiceKeyPrincipal, @Body() body: CreateMindDto) {
    return this.minds.create(principal, body);
  }

  /**
   * The mind of an end user by the SaaS's own user id, created when there is none (mem0's
   * `user_id`): 201 with the new mind, 200 with the existing one; idempotent, and concurrent
   * calls get one mind. The body (`name`, default the external id; `description`) is used only
   * on creation. 409 naming `name` when another mind already has that name.
   */
  @UsersOnly('owner', 'admin')
  @ServiceKeyScopeNeeded('minds:manage')
  @Put('by-external-id/:externalId')
  @Documented({ summary: "Get or create the mind of an end user by the SaaS's user id", errors: [400, { status: 403, description: 'not an owner or admin (members, Mind Keys, service keys without minds:manage)' }, { status: 409, description: 'another mind has that name' }, 413, 415] })
  @ZodResponse({ status: 200, type: MindViewDto, description: 'the existing mind' })
  @ApiResponse({ status: 201, type: MindViewDto.Output, description: 'the mind this call created' })
  // minds.dto.ts `externalId`: 1..200 characters (code points, as JSON Schema counts them).
  @ApiParam({ name: 'externalId', description: "the SaaS's own id of the end user: 1-200 characters, one line, no leading or trailing white space", schema: { type: 'string', minLength: 1, maxLength: 200 } })
  // A bodyless PUT works (the name defaults to the external id).
  @ApiBody({ type: EnsureMindDto, required: false })
  async ensureByExternalId(
    @CurrentPrincipal() principal: UserPrincipal | ServiceKeyPrincipal,
    @Param('externalId', new ExternalIdPipe()) id: string,
    @Body() body: EnsureMindDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { mind, created } = await this.minds.ensureByExternalId(principal, id, body ?? {});
    res.status(created ? 201 : 200);
    return mind;
  }

  /** The tenant's minds, newest first: `{items, next_cursor}`; `?name=` or `?external_id=` finds one. */
  @UsersOnly()
  @ServiceKeyScopeNeeded('minds:manage')
  @Get()
  @Documented({ summary: "List the tenant's minds", errors: [400, { status: 403, description: 'a Mind Key, or a service key without minds:manage' }] })
  @ZodResponse({ status: 200, type: MindListDto })
  list(@CurrentPrincipal() principal: UserPrincipal | ServiceKeyPrincipal, @Query() query: ListMindsQueryDto) {
    return this.minds.list(principal, query);
  }

  @UsersOnly()
  @ServiceKeyScopeNeeded('minds:manage')
  @Get(':id')
  @Documented({ summary: 'Get a mind', errors: [{ status: 403, description: 'a Mind Key, or a service key without minds:manage' }, 404] })
  @ZodResponse({ status: 200, type: MindViewDto })
  get(@CurrentPrincipal() principal: UserPrincipal | ServiceKeyPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    return this.minds.get(principal, id);
  }

  /** Deletes the mind and everything it owns (memories, history, messages, keys). 204. */
  @UsersOnly('owner', 'admin')
  @ServiceKeyScopeNeeded('minds:manage')
  @Delete(':id')
  @Documented({ summary: 'Delete a mind and everything it owns', errors: [{ status: 403, description: 'not an owner or admin (members, Mind Keys, service keys without minds:manage)' }, 404] })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted, with everything it owned' })
  async delete(@CurrentPrincipal() principal: UserPrincipal | ServiceKeyPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    await this.minds.delete(principal, id);
  }

  /** Issues a Mind Key: 201 `{id, key, ...}`; the key is shown this once and stored only as a hash. */
  @UsersOnly('owner', 'admin')
  @Post(':id/keys')
  @Documented({ summary: 'Issue a Mind Key (shown once)', errors: [400, { status: 403, description: 'not an owner or admin (members, Mind Keys and service keys)' }, 404, 413, 415] })
  @ZodResponse({ status: 201, type: NewMindKeyDto })
  // Every field is optional: a bodyless POST works.
  @ApiBody({ type: CreateMindKeyDto, required: false })
  createKey(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('id', new ParseIdPipe('mind')) id: string,
    @Body() body: CreateMindKeyDto,
  ) {
    return this.minds.createKey(principal, id, body);
  }

  /** The mind's keys without their secrets. */
  @UsersOnly()
  @Get(':id/keys')
  @Documented({ summary: "List a mind's keys (without secrets)", errors: [{ status: 403, description: 'a Mind Key or a service key (people only)' }, 404] })
  @ZodResponse({ status: 200, type: MindKeyListDto })
  listKeys(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    return this.minds.listKeys(principal, id);
  }

  /** Revokes a key: from now on it answers 401. 204, also when already revoked. */
  @UsersOnly('owner', 'admin')
  @Delete(':id/keys/:keyId')
  @Documented({ summary: 'Revoke a Mind Key', errors: [{ status: 403, description: 'not an owner or admin (members, Mind Keys and service keys)' }, 404] })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'revoked (also when it already was)' })
  async revokeKey(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('id', new ParseIdPipe('mind')) id: string,
    @Param('keyId', new ParseIdPipe('mind key')) keyId: string,
  ) {
    await this.minds.revokeKey(principal, id, keyId);
  }
}

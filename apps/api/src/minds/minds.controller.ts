import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { ParseIdPipe } from '../common/ids';
import {
  CreateMindDto,
  CreateMindKeyDto,
  ListMindsQueryDto,
  MindKeyListDto,
  MindListDto,
  MindViewDto,
  NewMindKeyDto,
} from './minds.dto';
import { MindsService } from './minds.service';

/**
 * Minds and their Mind Keys. People only (JWT): reading needs any role, changing needs owner
 * or admin. Another tenant's ids answer 404, like ids that do not exist.
 */
@ApiTags('minds')
@ApiBearerAuth()
@Controller({ path: 'minds', version: '1' })
export class MindsController {
  constructor(private readonly minds: MindsService) {}

  /** Creates a mind. 201 with the mind (`id`, `name`, ...); 409 when the name is taken. */
  @UsersOnly('owner', 'admin')
  @Post()
  @ZodResponse({ status: 201, type: MindViewDto })
  create(@CurrentPrincipal() principal: UserPrincipal, @Body() body: CreateMindDto) {
    return this.minds.create(principal, body);
  }

  /** The tenant's minds, newest first: `{items, next_cursor}`; `?name=` finds one by name. */
  @UsersOnly()
  @Get()
  @ZodResponse({ status: 200, type: MindListDto })
  list(@CurrentPrincipal() principal: UserPrincipal, @Query() query: ListMindsQueryDto) {
    return this.minds.list(principal, query);
  }

  @UsersOnly()
  @Get(':id')
  @ZodResponse({ status: 200, type: MindViewDto })
  get(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    return this.minds.get(principal, id);
  }

  /** Deletes the mind and everything it owns (memories, history, messages, keys). 204. */
  @UsersOnly('owner', 'admin')
  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    await this.minds.delete(principal, id);
  }

  /** Issues a Mind Key: 201 `{id, key, ...}`; the key is shown this once and stored only as a hash. */
  @UsersOnly('owner', 'admin')
  @Post(':id/keys')
  @ZodResponse({ status: 201, type: NewMindKeyDto })
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
  @ZodResponse({ status: 200, type: MindKeyListDto })
  listKeys(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('mind')) id: string) {
    return this.minds.listKeys(principal, id);
  }

  /** Revokes a key: from now on it answers 401. 204, also when already revoked. */
  @UsersOnly('owner', 'admin')
  @Delete(':id/keys/:keyId')
  @HttpCode(204)
  async revokeKey(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('id', new ParseIdPipe('mind')) id: string,
    @Param('keyId', new ParseIdPipe('mind key')) keyId: string,
  ) {
    await this.minds.revokeKey(principal, id, keyId);
  }
}

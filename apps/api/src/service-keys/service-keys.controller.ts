import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { Documented } from '../common/api-docs';
import { ParseIdPipe } from '../common/ids';
import { CreateServiceKeyDto, ListServiceKeysQueryDto, NewServiceKeyDto, ServiceKeyListDto } from './service-keys.dto';
import { ServiceKeysService } from './service-keys.service';

/**
 * Tenant service keys: the credential of a SaaS backend, acting on any mind of the tenant within
 * its scopes (docs/design.md §2). Issued, listed and revoked by owners and admins only (a JWT);
 * a key cannot manage keys. Another tenant's key ids answer 404.
 */
@ApiTags('service-keys')
@ApiBearerAuth()
@Controller({ path: 'service-keys', version: '1' })
export class ServiceKeysController {
  constructor(private readonly keys: ServiceKeysService) {}

  /** Issues a key: 201 `{id, key, scopes, ...}`; the key (`esk_...`) is shown this once. 400 names a bad field. */
  @UsersOnly('owner', 'admin')
  @Post()
  @Documented({ summary: 'Issue a tenant service key (shown once)', errors: [400, { status: 403, description: 'not an owner or admin with a JWT (members, Mind Keys and service keys)' }, 413, 415] })
  @ZodResponse({ status: 201, type: NewServiceKeyDto })
  create(@CurrentPrincipal() principal: UserPrincipal, @Body() body: CreateServiceKeyDto) {
    return this.keys.create(principal, body);
  }

  /** The tenant's keys without their secrets, newest first: `{items, next_cursor}`. */
  @UsersOnly('owner', 'admin')
  @Get()
  @Documented({ summary: "List the tenant's service keys (without secrets)", errors: [400, { status: 403, description: 'not an owner or admin with a JWT (members, Mind Keys and service keys)' }] })
  @ZodResponse({ status: 200, type: ServiceKeyListDto })
  list(@CurrentPrincipal() principal: UserPrincipal, @Query() query: ListServiceKeysQueryDto) {
    return this.keys.list(principal, query);
  }

  /** Revokes a key: from now on it answers 401. 204, also when already revoked; 404 for an unknown key. */
  @UsersOnly('owner', 'admin')
  @Delete(':id')
  @Documented({ summary: 'Revoke a tenant service key', errors: [{ status: 403, description: 'not an owner or admin with a JWT (members, Mind Keys and service keys)' }, 404] })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'revoked (also when it already was)' })
  async revoke(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('service key')) id: string) {
    await this.keys.revoke(principal, id);
  }
}

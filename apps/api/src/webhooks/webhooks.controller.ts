import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { Documented } from '../common/api-docs';
import { ParseIdPipe } from '../common/ids';
import {
  CreateWebhookDto,
  DeliveryListDto,
  DeliveryViewDto,
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  NewWebhookDto,
  UpdateWebhookDto,
  WebhookListDto,
  WebhookViewDto,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

const FORBIDDEN = { status: 403 as const, description: 'not an owner or admin (members, Mind Keys and service keys may not manage webhooks)' };

/**
 * Webhook endpoints and their deliveries (docs/webhooks.md): a tenant's owners and admins only,
 * since an endpoint receives the content of every mind's memories. Another tenant's ids answer
 * 404, like ids that do not exist.
 */
@ApiTags('webhooks')
@ApiBearerAuth()
@Controller({ path: 'webhooks', version: '1' })
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** Registers an endpoint: 201 with it and its signing `secret` (`whsec_…`), shown this once. 400 naming `url` for a refused address. */
  @UsersOnly('owner', 'admin')
  @Post()
  @Documented({ summary: 'Register a webhook endpoint', errors: [400, FORBIDDEN, 413, 415] })
  @ZodResponse({ status: 201, type: NewWebhookDto })
  create(@CurrentPrincipal() principal: UserPrincipal, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(principal, body);
  }

  /** The tenant's endpoints, newest first: `{items, next_cursor}` (no secrets). */
  @UsersOnly('owner', 'admin')
  @Get()
  @Documented({ summary: 'List webhook endpoints', errors: [400, FORBIDDEN] })
  @ZodResponse({ status: 200, type: WebhookListDto })
  list(@CurrentPrincipal() principal: UserPrincipal, @Query() query: ListWebhooksQueryDto) {
    return this.webhooks.list(principal, query);
  }

  @UsersOnly('owner', 'admin')
  @Get(':id')
  @Documented({ summary: 'Get a webhook endpoint', errors: [FORBIDDEN, 404] })
  @ZodResponse({ status: 200, type: WebhookViewDto })
  get(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('webhook')) id: string) {
    return this.webhooks.get(principal, id);
  }

  /** Changes `url`, `events`, `enabled` or `description`. A disabled endpoint's new deliveries fail at once (retry them once enabled). */
  @UsersOnly('owner', 'admin')
  @Patch(':id')
  @Documented({ summary: 'Change a webhook endpoint', errors: [400, FORBIDDEN, 404, 413, 415] })
  @ZodResponse({ status: 200, type: WebhookViewDto })
  update(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('webhook')) id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(principal, id, body);
  }

  /** Deletes the endpoint and its deliveries (pending ones are not sent). 204. */
  @UsersOnly('owner', 'admin')
  @Delete(':id')
  @HttpCode(204)
  @Documented({ summary: 'Delete a webhook endpoint', errors: [FORBIDDEN, 404] })
  @ApiNoContentResponse({ description: 'deleted, with its deliveries' })
  async delete(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('webhook')) id: string) {
    await this.webhooks.delete(principal, id);
  }

  /** The endpoint's deliveries, newest first, with each one's attempts and last error; `?status=failed` lists the failures. */
  @UsersOnly('owner', 'admin')
  @Get(':id/deliveries')
  @Documented({ summary: 'List the deliveries of a webhook endpoint', errors: [400, FORBIDDEN, 404] })
  @ZodResponse({ status: 200, type: DeliveryListDto })
  deliveries(@CurrentPrincipal() principal: UserPrincipal, @Param('id', new ParseIdPipe('webhook')) id: string, @Query() query: ListDeliveriesQueryDto) {
    return this.webhooks.deliveries(principal, id, query);
  }

  /** Sends a delivery again (same `webhook-id`), with a new round of attempts: 200 with the delivery, now pending. */
  @UsersOnly('owner', 'admin')
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @Documented({ summary: 'Retry a webhook delivery', errors: [FORBIDDEN, 404] })
  @ZodResponse({ status: 200, type: DeliveryViewDto })
  retry(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param('id', new ParseIdPipe('webhook')) id: string,
    @Param('deliveryId', new ParseIdPipe('delivery')) deliveryId: string,
  ) {
    return this.webhooks.retry(principal, id, deliveryId);
  }
}

import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { LifecycleSettings, LifecycleSettingsError, TenantDb } from '@engram/db';
import { UsersOnly } from '../auth/auth.decorators';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { AppError } from '../common/app-error';

/**
 * The tenant's lifecycle parameters (DESIGN §4-§5): every threshold, weight and preset, with the
 * DESIGN defaults unless overridden. Owners and admins only.
 */
@ApiTags('tenant')
@ApiBearerAuth()
@Controller({ path: 'tenant/settings/lifecycle', version: '1' })
export class LifecycleSettingsController {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly settings: LifecycleSettings,
  ) {}

  /** `{overrides, effective}`: what the tenant set, and the full config in force. */
  @UsersOnly('owner', 'admin')
  @Get()
  @ApiOkResponse({ description: '{overrides, effective}' })
  get(@CurrentPrincipal() principal: UserPrincipal) {
    return this.tenantDb.run(principal.tenantId, async (tx) => ({
      overrides: await this.settings.overrides(tx),
      effective: await this.settings.get(tx),
    }));
  }

  /**
   * Replaces the overrides (send `{}` to return to the defaults). Any subset of the config, nested
   * objects partial, e.g. `{"retention": {"preset": "seed"}}`. The merged config is validated as a
   * whole: 400 names each bad path (`retention.access_cap: ...`). Changing strength parameters
   * recomputes every memory's `strength_days` from its layer.
   */
  @UsersOnly('owner', 'admin')
  @Put()
  @ApiBody({ schema: { type: 'object', example: { retention: { preset: 'seed' } } } })
  @ApiOkResponse({ description: '{overrides, effective}' })
  async put(@CurrentPrincipal() principal: UserPrincipal, @Body() body: Record<string, unknown>) {
    try {
      return await this.tenantDb.run(principal.tenantId, async (tx) => ({
        effective: await this.settings.replace(tx, body),
        overrides: body,
      }));
    } catch (error) {
      if (error instanceof LifecycleSettingsError) {
        throw new AppError(
          'bad_request',
          error.message,
          error.problems.map((p) => ({ field: p.path, message: p.message })),
        );
      }
      throw error;
    }
  }
}

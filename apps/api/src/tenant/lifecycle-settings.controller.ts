import { Body, Controller, Get, Patch, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { TenantDb } from '@engram/db';
import { UsersOnly } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';
import { CurrentPrincipal, type UserPrincipal } from '../auth/principal';
import { AppError, LifecycleSettings, LifecycleSettingsError } from '@engram/services';
import { LifecycleSettingsDto, SavedLifecycleSettingsDto } from './lifecycle-settings.dto';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * JSON merge patch (RFC 7396): objects merge, `null` deletes, anything else replaces. An object
 * patched onto a value that is not one replaces it, as the RFC says, so `{"ef_search": {}}` is
 * refused by validation rather than taken as a deletion; sections left empty are pruned when
 * stored (LifecycleSettings.replace).
 */
function mergeOverrides(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    // RFC 7396: an object patches what is there, or an empty object, so a null inside it removes
    // nothing rather than being kept as a value.
    else if (isObject(v)) {
      out[k] = mergeOverrides(isObject(out[k]) ? (out[k] as Record<string, unknown>) : {}, v);
    }
    else out[k] = v;
  }
  return out;
}

/**
 * The tenant's lifecycle parameters (docs/design.md §4-§5): every threshold, weight and preset, with the
 * defaults of docs/design.md unless overridden. Owners and admins only.
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
  @Documented({ summary: "Get the tenant's lifecycle settings", errors: [{ status: 403, description: 'not an owner or admin of the tenant (members and Mind Keys)' }] })
  @ZodResponse({ status: 200, type: LifecycleSettingsDto, description: '{overrides, effective}' })
  get(@CurrentPrincipal() principal: UserPrincipal) {
    return this.tenantDb.run(principal.tenantId, async (tx) => ({
      overrides: await this.settings.overrides(tx),
      effective: await this.settings.get(tx),
    }));
  }

  /**
   * Replaces all overrides with the body (send `{}` to return to the defaults). Any subset of the config, nested
   * objects partial, e.g. `{"retention": {"preset": "seed"}}`. The merged config is validated as a
   * whole: 400 names each bad path (`retention.access_cap: ...`). Changing strength parameters
   * recomputes every memory's `strength_days` from its layer.
   */
  @UsersOnly('owner', 'admin')
  @Put()
  @Documented({ summary: "Replace the tenant's lifecycle overrides", errors: [{ status: 400, description: 'the merged config breaks a rule: `errors[].field` names each path' }, { status: 403, description: 'not an owner or admin of the tenant (members and Mind Keys)' }, 413, 415] })
  @ApiBody({ schema: { type: 'object', additionalProperties: true, example: { retention: { preset: 'seed' } } } })
  @ZodResponse({ status: 200, type: SavedLifecycleSettingsDto, description: '{effective, overrides}' })
  put(@CurrentPrincipal() principal: UserPrincipal, @Body() body: Record<string, unknown>) {
    return this.save(principal, async () => body);
  }

  /**
   * Merges into the overrides already set (nested objects merge, arrays and values replace; `null`
   * removes an override). Validated like PUT.
   */
  @UsersOnly('owner', 'admin')
  @Patch()
  @Documented({ summary: "Merge into the tenant's lifecycle overrides", errors: [{ status: 400, description: 'the merged config breaks a rule: `errors[].field` names each path' }, { status: 403, description: 'not an owner or admin of the tenant (members and Mind Keys)' }, 413, 415] })
  @ApiBody({ schema: { type: 'object', additionalProperties: true, example: { forgetting: { soft_threshold: 0.25 } } } })
  @ZodResponse({ status: 200, type: SavedLifecycleSettingsDto, description: '{effective, overrides}' })
  patch(@CurrentPrincipal() principal: UserPrincipal, @Body() body: Record<string, unknown>) {
    return this.save(principal, async (current) => mergeOverrides(current, body));
  }

  private async save(principal: UserPrincipal, next: (current: Record<string, unknown>) => Promise<Record<string, unknown>>) {
    try {
      return await this.tenantDb.run(principal.tenantId, async (tx) => {
        const effective = await this.settings.replace(tx, await next(await this.settings.overrides(tx)));
        // As stored: without the sections the write left empty.
        return { effective, overrides: await this.settings.overrides(tx) };
      });
    } catch (error) {
      if (error instanceof LifecycleSettingsError) {
        throw new AppError(
          'bad_request',
          error.message,
          error.problems.slice(0, 20).map((p) => ({ field: p.path, message: p.message })),
        );
      }
      throw error;
    }
  }
}

import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../auth/principal';
import { AppError, type MemoryScope } from '@engram/services';
import { isUuid } from '../common/ids';

/** The header a person or a service key uses to choose the mind a memory request acts on. */
export const MIND_HEADER = 'x-mind-id';

export type { MemoryScope };

/**
 * The mind of a memory request: a Mind Key's own mind, or for a person or a service key the
 * `X-Mind-Id` header. The mind's existence in the tenant is checked inside the request's
 * transaction (another tenant's mind answers 404, like one that does not exist).
 *
 * Provenance (docs/design.md §2): a service key writes as an agent (`source: agent`, never
 * `verified`, the agent's default confidence): it is a program, and only a person verifies.
 * Its versions record the actor `service_key` with the key's id.
 *
 * @throws AppError 400 when a person or a service key sends no or a malformed `X-Mind-Id`;
 * 403 when a Mind Key names a mind other than its own.
 */
export function memoryScopeOf(principal: Principal, header: string | string[] | undefined): MemoryScope {
  if (principal.kind === 'mind_key') {
    if (header !== undefined && (Array.isArray(header) || header.toLowerCase() !== principal.mindId)) {
      throw new AppError('forbidden', 'X-Mind-Id: a Mind Key acts on its own mind only');
    }
    return {
      tenantId: principal.tenantId,
      mindId: principal.mindId,
      writer: 'agent',
      actor: { type: 'mind_key', id: principal.keyId },
    };
  }
  if (header === undefined) {
    const who = principal.kind === 'service_key' ? 'a service key' : 'a user token';
    throw AppError.badField('X-Mind-Id', `is required with ${who}: the id of the mind to act on`);
  }
  if (Array.isArray(header) || !isUuid(header)) throw AppError.badField('X-Mind-Id', 'must be a mind id (UUID)');
  if (principal.kind === 'service_key') {
    return {
      tenantId: principal.tenantId,
      mindId: header.toLowerCase(),
      writer: 'agent',
      actor: { type: 'service_key', id: principal.keyId },
    };
  }
  return {
    tenantId: principal.tenantId,
    mindId: header.toLowerCase(),
    writer: 'user',
    actor: { type: 'user', id: principal.userId },
  };
}

export const CurrentMemoryScope = createParamDecorator((_: unknown, ctx: ExecutionContext): MemoryScope => {
  const request = ctx.switchToHttp().getRequest<Request & { user: Principal }>();
  const scope = memoryScopeOf(request.user, request.headers[MIND_HEADER]);
  // Express answers HEAD with the GET handler: a HEAD reads what a GET would, without the access.
  return request.method === 'HEAD' ? { ...scope, looksOnly: true } : scope;
});

import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ServiceKeyScope, UserRole } from '@engram/db';

/** A person, authenticated by a JWT. Role is read from the database on every request. */
export interface UserPrincipal {
  kind: 'user';
  tenantId: string;
  userId: string;
  role: UserRole;
}

/** An agent, authenticated by a Mind Key: it acts on its own mind only. */
export interface MindKeyPrincipal {
  kind: 'mind_key';
  tenantId: string;
  mindId: string;
  keyId: string;
}

/**
 * A SaaS backend, authenticated by a tenant service key: it acts on any mind of its tenant
 * (named per request by `X-Mind-Id`) within its scopes.
 */
export interface ServiceKeyPrincipal {
  kind: 'service_key';
  tenantId: string;
  keyId: string;
  scopes: ServiceKeyScope[];
}

export type Principal = UserPrincipal | MindKeyPrincipal | ServiceKeyPrincipal;

/** The authenticated caller of the request (set by the global auth guard). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<{ user: Principal }>().user;
});

import { SetMetadata } from '@nestjs/common';
import type { ServiceKeyScope, UserRole } from '@engram/db';

export const IS_PUBLIC = 'engram:public';
export const USER_ROLES = 'engram:user-roles';
export const SERVICE_KEY_SCOPE = 'engram:service-key-scope';

/** The route needs no credentials. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The route needs a person's JWT (a Mind Key gets 403); with roles given, only those roles.
 * Seed 002 "검증": only a person may verify a memory.
 */
export const UsersOnly = (...roles: UserRole[]) =>
  SetMetadata(USER_ROLES, roles.length > 0 ? roles : ['owner', 'admin', 'member']);

/**
 * A tenant service key with this scope may use the route too. Routes without it refuse every
 * service key with 403 (service keys are default-deny: a new route is closed to them until it
 * says which scope it needs).
 */
export const ServiceKeyScopeNeeded = (scope: ServiceKeyScope) => SetMetadata(SERVICE_KEY_SCOPE, scope);

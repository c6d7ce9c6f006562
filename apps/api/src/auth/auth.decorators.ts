import { SetMetadata } from '@nestjs/common';
import type { UserRole } from '@engram/db';

export const IS_PUBLIC = 'engram:public';
export const USER_ROLES = 'engram:user-roles';

/** The route needs no credentials. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The route needs a person's JWT (a Mind Key gets 403); with roles given, only those roles.
 * Seed 002 "검증": only a person may verify a memory.
 */
export const UsersOnly = (...roles: UserRole[]) =>
  SetMetadata(USER_ROLES, roles.length > 0 ? roles : ['owner', 'admin', 'member']);

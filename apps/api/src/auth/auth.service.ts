import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import * as argon2 from 'argon2';
import {
  PG_UNIQUE_VIOLATION,
  TenantDb,
  TenantsRepository,
  UsersRepository,
  pgErrorCode,
  type Tenant,
  type User,
} from '@engram/db';
import { AppError } from '@engram/services';
import { newId } from '../common/ids';
import type { UserClaims } from './jwt.strategy';
import type { UserPrincipal } from './principal';

const emailTaken = () =>
  new AppError('conflict', 'email: is already registered; log in instead', [{ field: 'email', message: 'is already registered; log in instead' }]);

// Verified when the e-mail is unknown, so a wrong address costs as long as a wrong password.
const DUMMY_HASH = argon2.hash('engram-timing-equaliser');

export function userView(user: User) {
  return {
    id: user.id,
    tenant_id: user.tenant_id,
    email: user.email,
    role: user.role,
    created_at: user.created_at.toISOString(),
  };
}

export function tenantView(tenant: Tenant) {
  return { id: tenant.id, name: tenant.name, created_at: tenant.created_at.toISOString() };
}

/** Registration, login and token issue for people (docs/design.md §2). Passwords are argon2id hashes. */
@Injectable()
export class AuthService {
  constructor(
    private readonly tenantDb: TenantDb,
    private readonly tenants: TenantsRepository,
    private readonly users: UsersRepository,
    private readonly jwt: JwtService,
  ) {}

  /**
   * Creates a tenant and its owner, and signs the owner in.
   *
   * @throws AppError 409 when the e-mail is already registered (e-mails are unique platform-wide).
   */
  async register(input: { email: string; password: string; tenant_name: string }) {
    const existing = await this.tenantDb.runWithoutTenant((db) => this.users.findCredentialsByEmail(db, input.email));
    if (existing) throw emailTaken();
    const passwordHash = await argon2.hash(input.password, { type: argon2.argon2id });
    const tenantId = newId();
    try {
      const { tenant, user } = await this.tenantDb.run(tenantId, async (tx) => {
        const tenant = await this.tenants.create(tx, input.tenant_name);
        const user = await this.users.create(tx, {
          id: newId(),
          email: input.email,
          password_hash: passwordHash,
          role: 'owner',
        });
        return { tenant, user };
      });
      return { token: await this.sign(user), user: userView(user), tenant: tenantView(tenant) };
    } catch (error) {
      if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw emailTaken();
      throw error;
    }
  }

  /** @throws AppError 401 with one message for an unknown e-mail and a wrong password. */
  async login(input: { email: string; password: string }): Promise<{ token: string }> {
    const found = await this.tenantDb.runWithoutTenant((db) => this.users.findCredentialsByEmail(db, input.email));
    const ok = await argon2.verify(found?.password_hash ?? (await DUMMY_HASH), input.password);
    if (!found || !ok) throw new AppError('unauthorized', 'invalid email or password');
    return { token: await this.sign({ id: found.id, tenant_id: found.tenant_id }) };
  }

  /** The caller's account and tenant. */
  async me(principal: UserPrincipal) {
    return this.tenantDb.run(principal.tenantId, async (tx) => {
      const user = await this.users.findById(tx, principal.userId);
      const tenant = await this.tenants.find(tx);
      if (!user || !tenant) throw new AppError('unauthorized', 'the user of this token no longer exists');
      return { user: userView(user), tenant: tenantView(tenant) };
    });
  }

  private sign(user: { id: string; tenant_id: string }): Promise<string> {
    const claims: UserClaims = { sub: user.id, tid: user.tenant_id };
    return this.jwt.signAsync(claims);
  }
}

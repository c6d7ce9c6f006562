import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { TenantTx } from '../tenant-db';
import { GenerateSql, SAMPLE } from '../sql-snapshot';
import type { DB, User, UserRole } from '../schema';

/** What login needs to know about an account before its tenant is known. */
export interface UserCredentials {
  tenant_id: string;
  id: string;
  password_hash: string;
  role: UserRole;
}

@Injectable()
export class UsersRepository {
  @GenerateSql({ params: [{ id: SAMPLE.uuid, email: 'a@example.com', password_hash: 'h', role: 'owner' }] })
  create(tx: TenantTx, user: { id: string; email: string; password_hash: string; role: UserRole }): Promise<User> {
    return tx.trx
      .insertInto('users')
      .values({ ...user, tenant_id: tx.tenantId })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  @GenerateSql({ params: [SAMPLE.uuid] })
  findById(tx: TenantTx, id: string): Promise<User | undefined> {
    return tx.trx
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tx.tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /**
   * The role of a user in a tenant, or undefined when the user is not (or no longer) there: one
   * statement through the security-definer `auth_user_role`, for checking a JWT on every request.
   */
  @GenerateSql({ params: [SAMPLE.uuid, SAMPLE.uuid2], withoutTenant: true })
  async roleOf(db: Kysely<DB>, tenantId: string, userId: string): Promise<UserRole | undefined> {
    const result = await sql<{ role: UserRole | null }>`select auth_user_role(${tenantId}::uuid, ${userId}::uuid) as role`.execute(db);
    return result.rows[0]?.role ?? undefined;
  }

  /**
   * The account for an e-mail address (case-insensitive), across tenants, through the
   * security-definer function `auth_find_user_by_email`: the only cross-tenant read of users.
   */
  @GenerateSql({ params: ['a@example.com'], withoutTenant: true })
  async findCredentialsByEmail(db: Kysely<DB>, email: string): Promise<UserCredentials | undefined> {
    const result = await sql<UserCredentials>`select * from auth_find_user_by_email(${email})`.execute(db);
    return result.rows[0];
  }
}

import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { TenantDb, UsersRepository } from '@engram/db';
import { AppError } from '@engram/services';
import { isUuid } from '../common/ids';
import { JWT_SECRET } from './auth.tokens';
import type { UserPrincipal } from './principal';

/** The claims Engram puts in a user JWT. */
export interface UserClaims {
  sub: string;
  /** tenant id */
  tid: string;
}

/**
 * passport-jwt for people: HS256 only (so `alg: none` and RS/HS confusion fail), issuer and
 * audience checked, expiry enforced. The user must still exist in the token's tenant; the role
 * comes from the database, not the token.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(JWT_SECRET) secret: string,
    private readonly tenantDb: TenantDb,
    private readonly users: UsersRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A key object, not a string: jsonwebtoken would otherwise try to parse the secret as a
      // PEM public key on every request before treating it as an HMAC secret.
      secretOrKey: createSecretKey(Buffer.from(secret, 'utf8')) as unknown as string,
      algorithms: ['HS256'],
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      ignoreExpiration: false,
    });
  }

  async validate(claims: Partial<UserClaims> & { exp?: unknown }): Promise<UserPrincipal> {
    // jsonwebtoken checks `exp` only when present: a token without one would never expire.
    if (typeof claims.exp !== 'number') throw new AppError('unauthorized', 'token has no expiry');
    if (!isUuid(claims.sub) || !isUuid(claims.tid)) {
      throw new AppError('unauthorized', 'token lacks a valid user or tenant claim');
    }
    const { sub, tid } = claims;
    const role = await this.tenantDb.runWithoutTenant((db) => this.users.roleOf(db, tid, sub));
    if (!role) throw new AppError('unauthorized', 'the user of this token no longer exists');
    return { kind: 'user', tenantId: tid, userId: sub, role };
  }
}

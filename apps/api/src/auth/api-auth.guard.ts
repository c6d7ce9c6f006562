import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import type { ServiceKeyScope, UserRole } from '@engram/db';
import { AppError } from '@engram/services';
import { IS_PUBLIC, SERVICE_KEY_SCOPE, USER_ROLES } from './auth.decorators';
import { looksLikeMindKey, looksLikeServiceKey } from './api-keys.codec';
import { MindKeyAuthService } from './mind-key-auth.service';
import { ServiceKeyAuthService } from './service-key-auth.service';
import type { Principal } from './principal';
import { readAuthorization, type Credentials } from './challenge';

/** Why a request has no bearer token, naming what was sent instead (RFC 6750 §2.1 asks for the Bearer scheme). */
function credentialsProblem(sent: Exclude<Credentials, { kind: 'bearer' }>, path: string): string {
  // /mcp is the agents' door: a Mind Key only (a person's JWT gets 403 there; helper 32's).
  const expected = `send Authorization: Bearer <${path === '/mcp' ? 'Mind Key' : 'JWT, Mind Key or service key'}>`;
  if (sent.kind === 'none') return `missing credentials: ${expected}`;
  if (sent.kind === 'malformed') return sent.tokens === 0 ? `Authorization: the Bearer token is missing: ${expected}` : `Authorization: Bearer takes exactly one token: ${expected}`;
  // A token sent without its scheme is not echoed: it is a secret, and clients log answers.
  if (!/^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(sent.scheme) || sent.parts === 1) return `Authorization: the Bearer scheme is missing before the token: ${expected}`;
  return `Authorization: the ${sent.scheme} scheme is not accepted: ${expected}`;
}

/**
 * The global guard. `Authorization: Bearer <token>` is a Mind Key (prefix `emk_`) for agents,
 * a tenant service key (prefix `esk_`) for SaaS backends, or a JWT (passport-jwt) for people.
 * Routes marked {@link UsersOnly} refuse Mind Keys with 403 and check the user's role; a
 * service key may use only routes marked {@link ServiceKeyScopeNeeded}, and needs that scope.
 *
 * Errors: 401 for a missing, malformed, expired, revoked or unknown credential; 403 for a valid
 * credential that may not use the route (Authorization sent twice never reaches it: a 400,
 * edge/client-errors `repeatedHeader`).
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly mindKeys: MindKeyAuthService,
    private readonly serviceKeys: ServiceKeyAuthService,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const request = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    const sent = readAuthorization(request.headers.authorization);
    if (sent.kind !== 'bearer') throw new AppError('unauthorized', credentialsProblem(sent, request.path));
    const { token } = sent;
    if (looksLikeMindKey(token)) {
      request.user = await this.mindKeys.authenticate(token);
    } else if (looksLikeServiceKey(token)) {
      request.user = await this.serviceKeys.authenticate(token);
    } else {
      await super.canActivate(context);
    }

    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(USER_ROLES, targets);
    const principal = request.user as Principal;
    if (principal.kind === 'service_key') {
      const scope = this.reflector.getAllAndOverride<ServiceKeyScope | undefined>(SERVICE_KEY_SCOPE, targets);
      if (!scope) throw new AppError('forbidden', 'a service key cannot use this endpoint: service keys reach minds and memories only');
      if (!principal.scopes.includes(scope)) throw new AppError('forbidden', `this service key lacks the scope ${scope}`);
      return true;
    }
    if (roles) {
      if (principal.kind !== 'user') {
        throw new AppError('forbidden', 'this endpoint needs a user\'s JWT; a Mind Key cannot use it');
      }
      if (!roles.includes(principal.role)) {
        throw new AppError('forbidden', `this endpoint needs the role ${roles.join(' or ')}`);
      }
    }
    return true;
  }

  // passport's verdict: no user is a 401 with the reason passport-jwt gave. `error` is what
  // JwtStrategy.validate threw: our own 401, or a failure to look the user up (the database is
  // down), which the global filter answers (503) rather than a 401 telling the client its token is bad.
  override handleRequest<T>(error: unknown, user: T, info: unknown): T {
    if (error) throw error;
    if (!user) {
      const reason = info instanceof Error ? info.message : 'invalid token';
      throw new AppError('unauthorized', `invalid credentials: ${reason}`);
    }
    return user;
  }
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { parseCookie, stringifySetCookie } from 'cookie';
import { sign, unsign } from 'cookie-signature';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { JwtStrategy, type UserClaims } from '../auth/jwt.strategy';
import { looksLikeMindKey, looksLikeServiceKey } from '../auth/api-keys.codec';
import { MindKeyAuthService } from '../auth/mind-key-auth.service';
import { ServiceKeyAuthService } from '../auth/service-key-auth.service';
import { ADMIN_PATH } from './admin-pages';

/** Name of the admin session cookie (HttpOnly, SameSite=Strict, Path=/admin). */
export const ADMIN_COOKIE = 'engram_admin';

/** How long a login lasts: a working day. Rotating ENGRAM_OPERATOR_TOKEN ends every session at once. */
export const ADMIN_SESSION_MS = 12 * 3_600_000;

/** At most this many signed-out sessions are remembered per process (the oldest go first). */
const MAX_REVOKED = 10_000;

/**
 * Who is asking for the admin dashboard:
 * - `operator`: the operator token as a bearer, or a valid session cookie;
 * - `closed`: ENGRAM_OPERATOR_TOKEN is not set, so nobody can be the operator;
 * - `anonymous`: no credentials at all (a browser before login);
 * - `invalid`: a bearer or cookie that proves nothing (wrong, expired, tampered, unknown);
 * - `tenant`: a valid tenant credential (a user's JWT, a Mind Key or a service key), which is not enough.
 */
export type AdminVerdict =
  | { kind: 'operator' }
  | { kind: 'closed' }
  | { kind: 'anonymous' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'tenant'; credential: 'jwt' | 'mind_key' | 'service_key' };

function bearerToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `Set-Cookie` for the session cookie: HttpOnly (no script reads it), SameSite=Strict (no other
 * site's form posts with it), Path=/admin (the API never sees it). `secure` is `req.secure`:
 * true behind a TLS proxy (trust proxy is set), false on plain http to localhost, where a Secure
 * cookie would never come back.
 */
function setCookie(value: string, secure: boolean, expires: Date, maxAgeSeconds: number): string {
  return stringifySetCookie(ADMIN_COOKIE, value, { httpOnly: true, sameSite: 'strict', path: ADMIN_PATH, secure, expires, maxAge: maxAgeSeconds });
}

/**
 * Authentication of the platform operator (ENGRAM_OPERATOR_TOKEN) for `/admin`.
 *
 * The session cookie never holds the token: it is `<expiry ms>.<HMAC-SHA256 keyed by the token
 * over the expiry>` (cookie-signature, as express signs cookies), so a leaked cookie expires,
 * cannot be turned back into the token, and stops working when the token is rotated.
 *
 * Sessions are stateless, so signing out cannot end one everywhere: {@link revokeSession}
 * remembers a signed-out cookie in this process's memory only, until it would have expired.
 * Another API process, or this one after a restart, still accepts a copy of that cookie until it
 * expires ({@link ADMIN_SESSION_MS} after sign-in) or ENGRAM_OPERATOR_TOKEN is rotated.
 *
 * Every comparison is constant-time (`timingSafeEqual`: of SHA-256 digests for the bearer, of the
 * whole signed value in cookie-signature), so response times tell nothing about how much of a
 * guess was right.
 *
 * Tenant credentials are recognised (so that they get a 403 that says why, not a puzzling 401)
 * but never admitted: see {@link AdminDashboard}.
 */
@Injectable()
export class OperatorAuth {
  /** Signed-out session cookies of this process, with their expiry (ms). */
  private readonly revoked = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jwt: JwtService,
    private readonly jwtStrategy: JwtStrategy,
    private readonly mindKeys: MindKeyAuthService,
    private readonly serviceKeys: ServiceKeyAuthService,
  ) {}

  /** False when ENGRAM_OPERATOR_TOKEN is unset: the dashboard is closed to everyone. */
  get enabled(): boolean {
    return this.config.ENGRAM_OPERATOR_TOKEN !== undefined;
  }

  /** Whether `given` is the operator token (constant time; false when the dashboard is closed). */
  isOperatorToken(given: string): boolean {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    if (!token) return false;
    // Digests have one length whatever was sent, which timingSafeEqual needs.
    return timingSafeEqual(sha256(given), sha256(token));
  }

  /**
   * A new session cookie's value, valid {@link ADMIN_SESSION_MS} from `now`.
   * @throws Error when the dashboard is closed (callers check {@link enabled} first).
   */
  issueSession(now = Date.now()): string {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    if (!token) throw new Error('the admin dashboard is closed: ENGRAM_OPERATOR_TOKEN is not set');
    return sign(String(now + ADMIN_SESSION_MS), token);
  }

  /** Whether a cookie value is a session this server issued with the current token, unexpired and not signed out here. */
  isValidSession(value: string, now = Date.now()): boolean {
    return this.sessionExpiry(value, now) !== undefined && !this.revoked.has(value);
  }

  /** The session cookie the request carries, if any (valid or not). */
  sessionCookie(request: Request): string | undefined {
    return request.headers.cookie ? parseCookie(request.headers.cookie)[ADMIN_COOKIE] : undefined;
  }

  /** `Set-Cookie` that starts a session in the browser, for {@link ADMIN_SESSION_MS}. */
  sessionSetCookie(value: string, secure: boolean, now = Date.now()): string {
    return setCookie(value, secure, new Date(now + ADMIN_SESSION_MS), ADMIN_SESSION_MS / 1000);
  }

  /** `Set-Cookie` that removes the session cookie from the browser (expired in 1970). */
  clearSessionSetCookie(secure: boolean): string {
    return setCookie('', secure, new Date(0), 0);
  }

  /**
   * Signs a session out in this process: the cookie is refused here from now on. Per process and
   * in memory only (see the class comment); cookies that are not valid sessions are ignored.
   */
  revokeSession(value: string, now = Date.now()): void {
    const expiry = this.sessionExpiry(value, now);
    if (expiry === undefined || this.revoked.has(value)) return;
    for (const [cookie, until] of this.revoked) if (until <= now) this.revoked.delete(cookie);
    if (this.revoked.size >= MAX_REVOKED) this.revoked.delete(this.revoked.keys().next().value as string);
    this.revoked.set(value, expiry);
  }

  /**
   * Classifies the request's credentials. A bearer wins over the cookie (it is what scripts
   * send, and a stale cookie should not hide a valid token).
   */
  async authenticate(request: Request): Promise<AdminVerdict> {
    if (!this.enabled) return { kind: 'closed' };
    const bearer = bearerToken(request);
    if (bearer !== undefined) {
      if (this.isOperatorToken(bearer)) return { kind: 'operator' };
      return this.tenantOrInvalid(bearer);
    }
    const cookie = this.sessionCookie(request);
    if (cookie !== undefined) {
      return this.isValidSession(cookie) ? { kind: 'operator' } : { kind: 'invalid', reason: 'the admin session has expired or is not valid; sign in again' };
    }
    return { kind: 'anonymous' };
  }

  // The same checks as the API's guard (signature, issuer, audience, expiry, the user still
  // exists; or a live Mind Key or service key), so that only a credential the API would accept earns the 403.
  private async tenantOrInvalid(bearer: string): Promise<AdminVerdict> {
    const invalid: AdminVerdict = { kind: 'invalid', reason: 'invalid credentials: not the operator token' };
    try {
      if (looksLikeMindKey(bearer)) {
        await this.mindKeys.authenticate(bearer);
        return { kind: 'tenant', credential: 'mind_key' };
      }
      if (looksLikeServiceKey(bearer)) {
        await this.serviceKeys.authenticate(bearer);
        return { kind: 'tenant', credential: 'service_key' };
      }
      const claims = await this.jwt.verifyAsync<Partial<UserClaims>>(bearer, {
        algorithms: ['HS256'],
        issuer: this.config.JWT_ISSUER,
        audience: this.config.JWT_AUDIENCE,
      });
      await this.jwtStrategy.validate(claims);
      return { kind: 'tenant', credential: 'jwt' };
    } catch {
      return invalid;
    }
  }

  // The expiry (ms) of a session cookie signed with the current token, if it has not passed and
  // is no further off than a session lasts (a cookie signed for later is not one we issued).
  private sessionExpiry(value: string, now: number): number | undefined {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    const signed = token ? unsign(value, token) : false;
    if (signed === false || !/^\d{1,15}$/.test(signed)) return undefined;
    const expiry = Number(signed);
    return expiry > now && expiry <= now + ADMIN_SESSION_MS ? expiry : undefined;
  }
}

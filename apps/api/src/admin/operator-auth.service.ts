import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { JwtStrategy, type UserClaims } from '../auth/jwt.strategy';
import { looksLikeMindKey } from '../auth/mind-key.codec';
import { MindKeyAuthService } from '../auth/mind-key-auth.service';

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
 * - `tenant`: a valid tenant credential (a user's JWT or a Mind Key), which is not enough.
 */
export type AdminVerdict =
  | { kind: 'operator' }
  | { kind: 'closed' }
  | { kind: 'anonymous' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'tenant'; credential: 'jwt' | 'mind_key' };

function bearerToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

// A single cookie's value; the header holds few cookies, and express has no parser of its own.
function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Authentication of the platform operator (ENGRAM_OPERATOR_TOKEN) for `/admin`.
 *
 * The session cookie never holds the token: it is `<expiry ms>.<HMAC-SHA256 keyed by the token
 * over the expiry>`, so a leaked cookie expires, cannot be turned back into the token, and stops
 * working when the token is rotated.
 *
 * Sessions are stateless, so signing out cannot end one everywhere: {@link revokeSession}
 * remembers a signed-out cookie in this process's memory only, until it would have expired.
 * Another API process, or this one after a restart, still accepts a copy of that cookie until it
 * expires ({@link ADMIN_SESSION_MS} after sign-in) or ENGRAM_OPERATOR_TOKEN is rotated.
 *
 * Every comparison is of two HMAC digests of equal length with
 * `timingSafeEqual`, so response times tell nothing about how much of a guess was right.
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
  ) {}

  /** False when ENGRAM_OPERATOR_TOKEN is unset: the dashboard is closed to everyone. */
  get enabled(): boolean {
    return this.config.ENGRAM_OPERATOR_TOKEN !== undefined;
  }

  /** Whether `given` is the operator token (constant time; false when the dashboard is closed). */
  isOperatorToken(given: string): boolean {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    if (!token) return false;
    return timingSafeEqual(this.mac(token, `bearer\n${given}`), this.mac(token, `bearer\n${token}`));
  }

  /**
   * A new session cookie's value, valid {@link ADMIN_SESSION_MS} from `now`.
   * @throws Error when the dashboard is closed (callers check {@link enabled} first).
   */
  issueSession(now = Date.now()): string {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    if (!token) throw new Error('the admin dashboard is closed: ENGRAM_OPERATOR_TOKEN is not set');
    const expiry = now + ADMIN_SESSION_MS;
    return `${expiry}.${this.mac(token, `session\n${expiry}`).toString('base64url')}`;
  }

  /** Whether a cookie value is a session this server issued with the current token, unexpired. */
  isValidSession(value: string, now = Date.now()): boolean {
    const token = this.config.ENGRAM_OPERATOR_TOKEN;
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!token || !match) return false;
    const expiry = Number(match[1]);
    if (expiry <= now || expiry > now + ADMIN_SESSION_MS) return false;
    if (this.revoked.has(value)) return false;
    return timingSafeEqual(Buffer.from(match[2] as string, 'base64url'), this.mac(token, `session\n${expiry}`));
  }

  /** The session cookie the request carries, if any (valid or not). */
  sessionCookie(request: Request): string | undefined {
    return readCookie(request, ADMIN_COOKIE);
  }

  /**
   * Signs a session out in this process: the cookie is refused here from now on. Per process and
   * in memory only (see the class comment); cookies that are not valid sessions are ignored.
   */
  revokeSession(value: string, now = Date.now()): void {
    if (!this.isValidSession(value, now)) return;
    for (const [cookie, expiry] of this.revoked) if (expiry <= now) this.revoked.delete(cookie);
    if (this.revoked.size >= MAX_REVOKED) this.revoked.delete(this.revoked.keys().next().value as string);
    this.revoked.set(value, Number(value.slice(0, value.indexOf('.'))));
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
    const cookie = readCookie(request, ADMIN_COOKIE);
    if (cookie !== undefined) {
      return this.isValidSession(cookie) ? { kind: 'operator' } : { kind: 'invalid', reason: 'the admin session has expired or is not valid; sign in again' };
    }
    return { kind: 'anonymous' };
  }

  // The same checks as the API's guard (signature, issuer, audience, expiry, the user still
  // exists; or a live Mind Key), so that only a credential the API would accept earns the 403.
  private async tenantOrInvalid(bearer: string): Promise<AdminVerdict> {
    const invalid: AdminVerdict = { kind: 'invalid', reason: 'invalid credentials: not the operator token' };
    try {
      if (looksLikeMindKey(bearer)) {
        await this.mindKeys.authenticate(bearer);
        return { kind: 'tenant', credential: 'mind_key' };
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

  private mac(key: string, message: string): Buffer {
    return createHmac('sha256', key).update(message, 'utf8').digest();
  }
}

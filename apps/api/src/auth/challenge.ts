/**
 * What an `Authorization` header holds (RFC 6750 §2.1): nothing, one Bearer token, a malformed
 * Bearer (no token, or several), or another scheme. One reading for the guard, its 401 messages
 * and the challenge every 401 carries.
 */
export type Credentials = { kind: 'none' } | { kind: 'bearer'; token: string } | { kind: 'malformed'; tokens: number } | { kind: 'other'; scheme: string; parts: number };

export function readAuthorization(header: string | undefined): Credentials {
  const parts = header?.trim().split(/\s+/).filter(Boolean) ?? [];
  const [scheme, token] = parts;
  if (scheme === undefined) return { kind: 'none' };
  if (/^bearer$/i.test(scheme)) return parts.length === 2 && token !== undefined ? { kind: 'bearer', token } : { kind: 'malformed', tokens: parts.length - 1 };
  return { kind: 'other', scheme, parts: parts.length };
}

/**
 * The challenge a 401 carries (RFC 7235 §3.1 requires one; RFC 6750 §3 gives its form): the
 * Bearer scheme in `realm`, and why the credentials sent were refused:
 * - none, or another scheme (`Basic ...`): no error code (RFC 6750 §3.1: the client may not have
 *   known authentication was needed);
 * - `Bearer` without a token, or with more than one: `error="invalid_request"` (malformed);
 * - a Bearer token: `error="invalid_token"` (unknown, expired, revoked or malformed).
 */
export function authChallenge(authorization: string | undefined, realm = 'engram'): string {
  const challenge = `Bearer realm="${realm}"`;
  const sent = readAuthorization(authorization);
  if (sent.kind === 'bearer') return `${challenge}, error="invalid_token"`;
  return sent.kind === 'malformed' ? `${challenge}, error="invalid_request"` : challenge;
}

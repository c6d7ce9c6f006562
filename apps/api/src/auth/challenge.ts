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
  const parts = authorization?.trim().split(/\s+/) ?? [];
  if (!/^bearer$/i.test(parts[0] ?? '')) return challenge;
  return `${challenge}, error="${parts.length === 2 ? 'invalid_token' : 'invalid_request'}"`;
}

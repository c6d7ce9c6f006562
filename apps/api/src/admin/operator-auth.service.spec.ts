import type { AppConfig } from '@engram/config';
import { ADMIN_SESSION_MS, OperatorAuth } from './operator-auth.service';

const TOKEN = 'operator-token-0123456789-0123456789-abcdef';
const NOW = Date.parse('2030-05-06T07:08:09.000Z');

// Sessions need neither the JWT service nor the Mind Keys or service keys: only tenant credentials do.
const auth = (token: string | undefined) => new OperatorAuth({ ENGRAM_OPERATOR_TOKEN: token } as AppConfig, undefined as never, undefined as never, undefined as never, undefined as never);

describe('OperatorAuth sessions', () => {
  it('accepts its own session for 12 hours, not a millisecond longer', () => {
    const a = auth(TOKEN);
    const session = a.issueSession(NOW);
    expect(a.isValidSession(session, NOW)).toBe(true);
    expect(a.isValidSession(session, NOW + ADMIN_SESSION_MS - 1)).toBe(true);
    expect(a.isValidSession(session, NOW + ADMIN_SESSION_MS)).toBe(false);
    expect(ADMIN_SESSION_MS).toBe(12 * 3_600_000);
  });

  it('never puts the token in the cookie', () => {
    expect(auth(TOKEN).issueSession(NOW)).not.toContain(TOKEN);
  });

  it('refuses every session once ENGRAM_OPERATOR_TOKEN is rotated, and all of them while it is unset', () => {
    const session = auth(TOKEN).issueSession(NOW);
    expect(auth(`${TOKEN}-rotated`).isValidSession(session, NOW)).toBe(false);
    expect(auth(undefined).isValidSession(session, NOW)).toBe(false);
    expect(() => auth(undefined).issueSession(NOW)).toThrow(/ENGRAM_OPERATOR_TOKEN is not set/);
  });

  it('refuses a tampered expiry, a forged signature and a session dated further off than one lasts', () => {
    const a = auth(TOKEN);
    const session = a.issueSession(NOW);
    const dot = session.indexOf('.');
    const later = `${Number(session.slice(0, dot)) + 1}${session.slice(dot)}`;
    expect(a.isValidSession(later, NOW)).toBe(false);
    expect(a.isValidSession(`${session.slice(0, -2)}AA`, NOW)).toBe(false);
    for (const junk of ['', '.', 'abc', `${NOW + 60_000}`, `${NOW + 60_000}.`]) expect(a.isValidSession(junk, NOW)).toBe(false);
    // Signed with the right token for a day from now: not a session this server issues.
    const farOff = auth(TOKEN).issueSession(NOW + ADMIN_SESSION_MS);
    expect(a.isValidSession(farOff, NOW)).toBe(false);
  });

  it('revokes a signed-out session in this process only', () => {
    const a = auth(TOKEN);
    const session = a.issueSession(NOW);
    a.revokeSession(session, NOW);
    expect(a.isValidSession(session, NOW)).toBe(false);
    expect(auth(TOKEN).isValidSession(session, NOW)).toBe(true);
    expect(a.isValidSession(a.issueSession(NOW + 1), NOW + 1)).toBe(true);
  });
});

import { loggedUrl } from './logged-url';

describe('loggedUrl', () => {
  it('names the path and the query parameters, never their values', () => {
    expect(loggedUrl('/v1/memory/search?q=my%20diagnosis&limit=5&tags=health&tags=private')).toBe('/v1/memory/search?q=…&limit=…&tags=…');
    expect(loggedUrl('/v1/memory/search?q=%E6%88%91%E4%BD%8F')).toBe('/v1/memory/search?q=…');
    expect(loggedUrl('/v1/auth/me')).toBe('/v1/auth/me');
    expect(loggedUrl('/v1/memory?')).toBe('/v1/memory');
  });
});

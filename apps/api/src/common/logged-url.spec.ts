import { loggedUrl } from './logged-url';

describe('loggedUrl', () => {
  it('names the path and the query parameters, never their values', () => {
    expect(loggedUrl('/v1/memory/search?q=my%20diagnosis&limit=5&tag=health&tag=private')).toBe('/v1/memory/search?q=…&limit=…&tag=…');
    expect(loggedUrl('/v1/memory/search?q=%E6%88%91%E4%BD%8F')).toBe('/v1/memory/search?q=…');
    expect(loggedUrl('/v1/auth/me')).toBe('/v1/auth/me');
    expect(loggedUrl('/v1/memory?')).toBe('/v1/memory');
  });

  it('leaves out a value sent as a name, and the external id in a path', () => {
    expect(loggedUrl('/v1/memory/search?%E5%8C%97%E4%BA%AC')).toBe('/v1/memory/search?…=…');
    expect(loggedUrl('/v1/memory/search?my%20diagnosis&limit=3')).toBe('/v1/memory/search?…=…&limit=…');
    expect(loggedUrl('/v1/minds/by-external-id/jane.doe%40example.com')).toBe('/v1/minds/by-external-id/…');
    expect(loggedUrl('/v1/minds/by-external-id/jane/memories?q=x')).toBe('/v1/minds/by-external-id/…/memories?q=…');
    // Whatever the case (Express's router ignores it), and a plain word sent without `=`.
    expect(loggedUrl('/v1/minds/BY-EXTERNAL-ID/jane.doe%40example.com')).toBe('/v1/minds/BY-EXTERNAL-ID/…');
    expect(loggedUrl('/v1/memory/search?lisbon&mode=all')).toBe('/v1/memory/search?…=…&mode=…');
  });
});

/**
 * A request's URL as its log line names it: the path and the names of its query parameters, not
 * their values. A search's `q` and a filter's tags are a tenant's memories in other words; every
 * request logged them at `info` (`/v1/memory/search?q=my%20diagnosis`). `debug` and `trace` keep
 * the whole URL.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = [...new Set([...new URLSearchParams(url.slice(at + 1)).keys()])];
  return `${url.slice(0, at)}${names.length > 0 ? `?${names.map((n) => `${encodeURIComponent(n)}=…`).join('&')}` : ''}`;
}

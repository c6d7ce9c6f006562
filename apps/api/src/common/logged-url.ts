/**
 * The API's query parameters (its OpenAPI document; test/openapi.test.ts checks the two agree).
 * Any other name may be a value sent without `=` (`?lisbon`, `?北京`): it is logged as `…`.
 */
export const QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'category', 'confirm', 'cursor', 'explain', 'external_id', 'from', 'include_expired', 'layer', 'limit', 'max_tokens',
  'memory_type', 'mode', 'name', 'priority', 'q', 'relation', 'status', 'tag', 'tier', 'to', 'verified', 'within',
]);

/**
 * A request's URL as its log line names it: the path and the names of its query parameters, not
 * their values. A search's `q` and a filter's tags are a tenant's memories in other words; every
 * request logged them at `info` (`/v1/memory/search?q=my%20diagnosis`). A "name" that is none of
 * the API's parameters (`?北京`, `?lisbon`: a query sent without `q=`) and the external id in a
 * path (often an end user's e-mail; whatever its case, as the router reads it) are left out too. `debug` and `trace` keep the whole URL.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(/(\/by-external-id\/)[^/]+/i, '$1…');
  if (at < 0) return path;
  const names = [...new Set([...new URLSearchParams(url.slice(at + 1)).keys()].map((n) => (QUERY_PARAMETERS.has(n) ? n : '…')))];
  return `${path}${names.length > 0 ? `?${names.map((n) => `${n}=…`).join('&')}` : ''}`;
}

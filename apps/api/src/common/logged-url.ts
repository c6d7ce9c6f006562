/** A query parameter's name as the API names them (`q`, `tag`, `include_expired`); anything else may be a value sent without `=`. */
const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_.[\]-]{0,39}$/;

/**
 * A request's URL as its log line names it: the path and the names of its query parameters, not
 * their values. A search's `q` and a filter's tags are a tenant's memories in other words; every
 * request logged them at `info` (`/v1/memory/search?q=my%20diagnosis`). A "name" that is no
 * parameter name (`?北京`, a query sent without `q=`) and the external id in a path (often an end
 * user's e-mail) are left out too. `debug` and `trace` keep the whole URL.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(/(\/by-external-id\/)[^/]+/, '$1…');
  if (at < 0) return path;
  const names = [...new Set([...new URLSearchParams(url.slice(at + 1)).keys()].map((n) => (PARAMETER_NAME.test(n) ? n : '…')))];
  return `${path}${names.length > 0 ? `?${names.map((n) => `${n}=…`).join('&')}` : ''}`;
}

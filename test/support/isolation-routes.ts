import type { Route } from './routes';

// The router table as test/isolation-matrix.test.ts reads it: the routes outside the matrix and
// why, which record each path parameter names, and a request each route accepts. Kept apart from
// the matrix so that declaring a new route (public, or with a new kind of id) is a change here.

/** Routes that need no credential, and why they are outside the matrix. */
export const PUBLIC_ROUTES: Record<string, string> = {
  'post /v1/auth/register': 'anyone may create a tenant; it reads no tenant data',
  'post /v1/auth/login': 'anyone may exchange e-mail and password; answers one 401 for every mismatch',
  'get /health/live': 'liveness probe: no tenant data',
  'get /health/ready': 'readiness probe: checks the database, no tenant data',
  'get /metrics': "the service's Prometheus metrics, not a tenant's (guarded by METRICS_TOKEN when set)",
};
/** Router-table entries that are not endpoints of the API, by pattern, and why. */
export const PUBLIC_PATTERNS: Array<[RegExp, string]> = [
  [/^\/docs(\/|-json$|-yaml$|$)/, 'the OpenAPI UI and document (OPENAPI_ENABLED): the description of the API, no tenant data'],
  [/\{\*path\}/, "Nest's registration of middleware for every path (HttpMetricsMiddleware, JsonBodyMiddleware): not an endpoint, answers 404 after the middleware"],
];
// /admin (operator dashboard) and /inspector (static UI) are Express routers mounted with app.use,
// not routes of the router table; they have their own auth (OperatorAuth) and tests.

/**
 * `externalId` is a name the tenant chooses (the SaaS's user id), like a conversation id: the
 * same text in another tenant names that tenant's own mind.
 */
export type Kind = 'memory' | 'mind' | 'key' | 'conversation' | 'serviceKey' | 'externalId' | 'webhook' | 'delivery';

/** Which record a path parameter names; undefined when this file does not know it yet. */
export function paramKind(path: string, param: string): Kind | undefined {
  if (param === 'keyId') return 'key';
  if (param === 'conversationId') return 'conversation';
  if (param === 'externalId') return 'externalId';
  if (param === 'deliveryId') return 'delivery';
  if (param === 'id' && path.startsWith('/v1/webhooks/')) return 'webhook';
  if (param === 'id' && path.startsWith('/v1/service-keys/')) return 'serviceKey';
  if (param === 'id' && path.startsWith('/v1/minds/')) return 'mind';
  if (param === 'id' && path.startsWith('/v1/memory/')) return 'memory';
  return undefined;
}

export const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
export const label = (r: Route) => `${r.method} ${r.path}`;

export const isPublic = (r: Route) => label(r) in PUBLIC_ROUTES || PUBLIC_PATTERNS.some(([re]) => re.test(r.path));

/** A body the route accepts, so validation (400) cannot hide what the route would do. */
export function bodyFor(route: Route): object | undefined {
  if (route.method === 'get' || route.method === 'delete') return undefined;
  if (route.path.endsWith('/messages')) return { messages: [{ content: 'probe from outside A' }] };
  if (route.method === 'put' && route.path.startsWith('/v1/memory/')) return { content: 'overwritten from outside A' };
  if (route.path.endsWith('/keys')) return { name: 'planted key' };
  if (route.path === '/v1/service-keys') return { name: 'planted service key', scopes: ['memories:read'] };
  // TEST-NET-3 (RFC 5737): a public address as far as the SSRF rules go, never contacted here.
  if (route.path === '/v1/webhooks') return { url: 'https://203.0.113.10/planted', events: ['memory.evicted'] };
  if (route.method === 'patch' && route.path.startsWith('/v1/webhooks/')) return { enabled: false };
  return {};
}

/** A query that would find A's data, were it visible to the caller. */
export function queryFor(route: Route): Record<string, string> | undefined {
  if (route.path === '/v1/memory/search') return { q: 'ALICE secret quartz pelican' };
  if (route.path === '/v1/memory/by-tag') return { tag: 'alicetag' };
  if (route.path === '/v1/memory') return { include_expired: 'true' };
  if (route.path === '/v1/minds') return { name: 'alice second mind' };
  return undefined;
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A caller's request id that is safe to adopt: a short token (a tracing proxy's). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request's id, for its log lines and its answer: the caller's `X-Request-Id` when it is a sane
 * token, else a new UUID (a repeated header, which Node joins as "a, b", is not one). Set as the
 * answer's `X-Request-Id`, which also keeps it: asked again for the same answer, the same id.
 * One rule for pino-http's requests, the admin pages (mounted before Nest's middleware) and the
 * requests refused before routing (create-app).
 */
export function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const known = res.getHeader('X-Request-Id');
  if (typeof known === 'string') return known;
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

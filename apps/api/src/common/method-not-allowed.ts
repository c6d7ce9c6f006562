import { NotFoundException } from '@nestjs/common';
import type { Request } from 'express';

/** As many methods as a route registered for all of them has at least (Node knows ~35). */
const ALL_METHODS = 20;

/** What Express's router keeps of a route: enough to ask whether a path is one of its. */
interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): { keys: string[] } | false;
}

/** Whether `exception` is Nest's answer to a request no route took (`Cannot PATCH /v1/...`). */
export function routeNotFound(exception: unknown, request: Request): boolean {
  return exception instanceof NotFoundException && exception.message.startsWith(`Cannot ${request.method} `);
}

/**
 * The methods the API answers on the request's path, when the request was refused only for its
 * method: Nest answers that `404 Cannot PATCH /v1/memory/{id}`, which reads as "no such memory";
 * RFC 9110 §15.5.6 says 405 with an `Allow` header. Empty when nothing routes this path (a true
 * 404) or the exception is another one.
 */
export function allowedMethods(exception: unknown, request: Request): string[] {
  if (!routeNotFound(exception, request)) return [];
  const stack = ((request.app as unknown as { router?: { stack?: RouteLayer[] } } | undefined)?.router?.stack ?? []) as RouteLayer[];
  const matched: { methods: Record<string, boolean>; literal: boolean }[] = [];
  for (const layer of stack) {
    const match = layer.route ? layer.match(request.path) : false;
    // Nest binds module middleware as routes for every method (`app.all`): not an endpoint.
    if (!match || !layer.route || Object.keys(layer.route.methods).length >= ALL_METHODS) continue;
    matched.push({ methods: layer.route.methods, literal: match.keys.length === 0 });
  }
  // A path the API names (`/v1/memory/search`) takes its own methods, not those of the
  // parameter route it also fits (`/v1/memory/{id}`: helper 32's).
  const named = matched.some((m) => m.literal) ? matched.filter((m) => m.literal) : matched;
  const allowed = new Set<string>();
  for (const { methods } of named) for (const [method, on] of Object.entries(methods)) if (on && !method.startsWith('_')) allowed.add(method.toUpperCase());
  if (allowed.has('GET')) allowed.add('HEAD');
  allowed.delete(request.method);
  return [...allowed].sort();
}

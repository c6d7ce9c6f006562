import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import { AppError } from '@engram/services';

/** Parameter kinds through which a handler reads the query string: its query, or the whole request. */
const READS_QUERY = new Set<number>([RouteParamtypes.QUERY, RouteParamtypes.REQUEST]);

/**
 * A route that takes no query parameters refuses any it is sent: 400 naming each, worded as the
 * routes with parameters refuse an unknown one (their strict DTOs: "is not a known field here").
 * Why: `GET /v1/memory/stats?category=fact` or `GET /v1/memory/{id}?include=history` answered
 * 200 as if the parameter had been applied, and the caller could not tell (a newcomer's report).
 * A route whose handler takes `@Query()` or the request itself validates its own.
 */
@Injectable()
export class StrayQueryGuard implements CanActivate {
  private readonly readsQuery = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const query = context.switchToHttp().getRequest<Request>().query ?? {};
    const keys = Object.keys(query);
    if (keys.length === 0) return true;
    const handler = context.getHandler();
    let reads = this.readsQuery.get(handler);
    if (reads === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      // Keys are `<paramtype>:<index>` (custom decorators: `<id>__customRouteArgs__:<index>`).
      reads = Object.keys(args).some((key) => READS_QUERY.has(Number(key.split(':')[0])));
      this.readsQuery.set(handler, reads);
    }
    if (reads) return true;
    const problems = keys.map((field) => ({ field, message: 'is not a known field here: this route takes no query parameters' }));
    throw new AppError('bad_request', `${keys[0]}: ${problems[0]?.message}`, problems);
  }
}

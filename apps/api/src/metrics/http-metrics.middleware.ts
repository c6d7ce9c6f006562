import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { EngramMetrics } from '@engram/metrics';

// Nest binds module middleware as catch-all routes (`app.all('/*path')`), so a request that no
// controller took still carries one of those in req.route: a bare wildcard is no route.
const CATCH_ALL = /^\/?\{?\*[^/]*\}?$/;

/**
 * Times every request into `engram_http_request_duration_seconds{method, route, status}`, from
 * here to the last byte handed to the socket (`finish`). The route is Express's template
 * (`/v1/memory/:id`), read when the answer is done, since routing happens after this middleware;
 * never the URL, whose ids would make a series per memory. Requests no controller took (404s)
 * are `unmatched`. Scrapes of /metrics are not counted. A request the client abandons before the
 * answer is done never finishes and is not counted.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: EngramMetrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      // baseUrl is where a sub-router (the admin dashboard) is mounted; '' for the API's own routes.
      const route = typeof template === 'string' && !CATCH_ALL.test(template) ? `${req.baseUrl}${template}` : 'unmatched';
      if (route === '/metrics') return;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      this.metrics.httpRequestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    });
    next();
  }
}

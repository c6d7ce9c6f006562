import { STATUS_CODES } from 'node:http';
import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { InjectPinoLogger, PinoLogger } from 'nestjs-pino';
import { ZodValidationException } from 'nestjs-zod';
import type { z } from 'zod';
import {
  PG_CHECK_VIOLATION,
  PG_DEADLOCK_DETECTED,
  PG_FOREIGN_KEY_VIOLATION,
  PG_INSUFFICIENT_PRIVILEGE,
  PG_SERIALIZATION_FAILURE,
  PG_UNIQUE_VIOLATION,
  pgErrorCode,
} from '@engram/db';
import { AppError, ERROR_STATUS, type FieldProblem } from '@engram/services';
import { authChallenge } from '../auth/challenge';
import { allowedMethods, routeNotFound } from './method-not-allowed';
import { zodProblems } from './zod-problems';

/** Problems listed in one answer: enough to fix a request, not a wall of text for a hostile one. */
const MAX_PROBLEMS = 20;

/** The JSON body of every error answer. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  requestId?: string;
  errors?: FieldProblem[];
}

// Connection-level failures: the database (or the network to it) is down or restarting.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006']);

function isUnavailable(error: unknown): boolean {
  const code = pgErrorCode(error) ?? (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  // Kysely's "driver has already been destroyed": a request that came in while this process shut
  // down (its pool is closed); another instance, or this one restarted, can answer it.
  return /Connection terminated|connection timeout|Client has encountered a connection error|driver has already been destroyed/i.test(message);
}

/**
 * The checks a failed terminus health check names (`database down`), from the result its
 * ServiceUnavailableException carries; undefined for any other exception. Only names and
 * states: the probes are public, and a check's message may hold a host and port.
 */
function failingHealthChecks(response: unknown): string | undefined {
  const result = response as { status?: unknown; error?: Record<string, { status?: unknown }> } | null;
  if (typeof result !== 'object' || result === null || result.status !== 'error' || typeof result.error !== 'object') return undefined;
  return Object.entries(result.error ?? {}).map(([name, check]) => `${name} ${String(check?.status)}`).join(', ');
}

/**
 * One answer shape for every failure: `{statusCode, error, message, requestId, errors?}`.
 * Validation problems name the field; database constraint failures that slip past validation
 * become 4xx; an unreachable database, or a deadlock or serialization failure that outlived
 * TenantDb's retries, 503 with `Retry-After`; anything else is a 500. Stacks are logged for 5xx.
 * A 401 carries `WWW-Authenticate` ({@link authChallenge}); a path the API routes for other
 * methods only answers 405 with `Allow` ({@link allowedMethods}).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(@InjectPinoLogger('HTTP') private readonly logger: PinoLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request & { id?: string }>();
    const response = http.getResponse<Response>();
    const allowed = allowedMethods(exception, request);
    const body =
      allowed.length > 0
        ? this.body(405, `method: ${request.method} is not allowed on this path; it takes ${allowed.join(', ')}`)
        : routeNotFound(exception, request)
          ? // Nest's "Cannot GET <url>" echoed the query string too, values and all (helper 32's): the path only.
            this.body(404, `Cannot ${request.method} ${request.path}`)
          : this.toBody(exception, [request.body, request.query, request.params]);
    body.requestId = request.id === undefined ? undefined : String(request.id);
    if (body.statusCode >= 500) {
      this.logger.error({ err: exception, requestId: body.requestId }, body.message);
    }
    if (response.headersSent) return;
    if (body.statusCode === 503) response.setHeader('Retry-After', '5');
    if (allowed.length > 0) {
      response.setHeader('Allow', [...allowed, 'OPTIONS'].sort().join(', '));
      // OPTIONS asks what a path takes (RFC 9110 §9.3.7): answered, not refused (helper 32's).
      if (request.method === 'OPTIONS') {
        response.status(204).end();
        return;
      }
    }
    if (body.statusCode === 401 && !response.hasHeader('WWW-Authenticate')) response.setHeader('WWW-Authenticate', authChallenge(request.headers.authorization));
    // A route may have set its own Content-Type (recall is text/plain) before failing.
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.status(body.statusCode).json(body);
  }

  private toBody(exception: unknown, inputs: readonly unknown[]): ErrorBody {
    if (exception instanceof AppError) {
      return this.body(ERROR_STATUS[exception.code], exception.message, exception.problems);
    }
    if (exception instanceof ZodValidationException) {
      const all = zodProblems(exception.getZodError() as z.ZodError, undefined, inputs);
      const problems = all.slice(0, MAX_PROBLEMS);
      const more = all.length > MAX_PROBLEMS ? `; and ${all.length - MAX_PROBLEMS} more` : '';
      return this.body(400, problems.map((p) => `${p.field}: ${p.message}`).join('; ') + more, problems);
    }
    if (exception instanceof HttpException) {
      return this.fromHttpException(exception);
    }
    switch (pgErrorCode(exception)) {
      case PG_UNIQUE_VIOLATION:
        return this.body(409, 'conflicts with an existing record');
      case PG_FOREIGN_KEY_VIOLATION:
        return this.body(404, 'a referenced record does not exist');
      case PG_CHECK_VIOLATION:
        return this.body(400, 'a value breaks a storage rule');
      case PG_INSUFFICIENT_PRIVILEGE:
        return this.body(404, 'not found');
      // Transient: TenantDb has already rolled the unit back and run it again (three attempts),
      // and the same request will most likely pass once the concurrent work it met is done.
      case PG_DEADLOCK_DETECTED:
      case PG_SERIALIZATION_FAILURE:
        return this.body(503, 'the database kept meeting concurrent work on the same data (deadlock or serialization failure); retry shortly');
    }
    if (isUnavailable(exception)) return this.body(503, 'the database is unavailable; retry shortly');
    return this.body(500, 'internal error');
  }

  private fromHttpException(exception: HttpException): ErrorBody {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    const failing = failingHealthChecks(response);
    if (failing) {
      message = `unhealthy: ${failing}`;
    } else if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    return this.body(status, message);
  }

  private body(statusCode: number, message: string, errors?: FieldProblem[]): ErrorBody {
    const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
    if (errors && errors.length > 0) body.errors = errors;
    return body;
  }
}

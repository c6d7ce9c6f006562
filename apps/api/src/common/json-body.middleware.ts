import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { parse as parseContentType } from 'content-type';
import { json, text, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { AppError } from '@engram/services';
import { inputProblem } from './input-hygiene';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The routes that take JSONL (`application/x-ndjson`) instead of a JSON object: the body arrives as a string. */
const NDJSON_ROUTES = new Set(['/v1/tenant/import']);

function unsupportedMedia(field: string, rule: string): AppError {
  return new AppError('unsupported_media_type', `${field}: ${rule}`, [{ field, message: rule }]);
}

/** The media types of a JSON body: JSON, and a JSON merge patch (RFC 7396) as JSON. */
const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/**
 * Request bodies are JSON, parsed here (not by Express) so that every failure answers like any
 * other bad input, never 500:
 * - Content-Type other than application/json (or RFC 7396's application/merge-patch+json, which
 *   the settings' PATCH takes: a newcomer's 415), or a charset other than utf-8 → 415;
 * - Content-Encoding other than gzip, deflate, br or identity → 415; a body that does not
 *   decompress → 400 naming `Content-Encoding`;
 * - bytes that are not UTF-8, text that is not JSON, or JSON that is not an object → 400 naming `body`;
 * - a body over `BODY_LIMIT` → 413;
 * - text PostgreSQL cannot store or would alter (NUL, lone surrogates), non-finite numbers,
 *   `__proto__` keys, or nesting deeper than 32 levels → 400 naming the field (also for query
 *   parameters);
 * - no body at all → validated as `{}`, so an endpoint whose fields are all optional needs none;
 * - on the routes of `NDJSON_ROUTES`, `application/x-ndjson` is read as UTF-8 text (up to
 *   `IMPORT_BODY_LIMIT`, same encodings and errors) and handed over as a string; the route checks each line.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: RequestHandler;
  private readonly parseNdjson: RequestHandler;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const verify = (_req: unknown, _res: unknown, buf: Buffer) => {
      try {
        strictUtf8.decode(buf);
      } catch {
        throw Object.assign(new Error('not utf-8'), { type: 'engram.invalid.utf8' });
      }
    };
    this.parse = json({ limit: config.BODY_LIMIT, strict: false, verify, type: JSON_TYPES });
    this.parseNdjson = text({ limit: config.IMPORT_BODY_LIMIT, type: 'application/x-ndjson', defaultCharset: 'utf-8', verify });
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    this.checkQuery(req);
    if (hasBody(req)) {
      const type = req.headers['content-type'];
      if (type && req.is('application/x-ndjson') && NDJSON_ROUTES.has((req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, ''))) {
        await this.read(this.parseNdjson, req, res, type);
        next();
        return;
      }
      if (!type || !req.is(JSON_TYPES)) throw unsupportedMedia('Content-Type', 'must be application/json (or application/merge-patch+json) for a request body');
      await this.read(this.parse, req, res, type);
      if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
        throw AppError.badField('body', 'must be a JSON object');
      }
      const problem = inputProblem(req.body, '');
      if (problem) throw AppError.badField(problem.field || 'body', problem.message);
    }
    if (req.body === undefined) req.body = {};
    next();
  }

  private async read(parse: RequestHandler, req: Request, res: Response, type: string): Promise<void> {
    // Read as body-parser reads it (same library: quoted values, first one wins). body-parser would
    // decode utf-16 or latin1 too, but `verify` checks the raw bytes as UTF-8: say so with a 415.
    const charset = parseContentType(type).parameters.charset?.toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      throw unsupportedMedia('Content-Type', 'charset must be utf-8');
    }
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(translate(error, req)) : resolve()));
    });
  }

  private checkQuery(req: Request): void {
    const problem = inputProblem(req.query, '');
    if (problem) throw AppError.badField(problem.field, problem.message);
  }
}

function translate(error: unknown, req: Request): unknown {
  const e = error as { type?: unknown; status?: unknown };
  switch (e.type) {
    case 'engram.invalid.utf8':
      return AppError.badField('body', 'is not valid UTF-8');
    case 'entity.parse.failed':
      return AppError.badField('body', 'is not valid JSON');
    case 'entity.too.large':
      return new AppError('payload_too_large', `body: is larger than the accepted limit (${req.is('application/x-ndjson') ? 'IMPORT_BODY_LIMIT' : 'BODY_LIMIT'})`);
    case 'encoding.unsupported':
      return unsupportedMedia('Content-Encoding', 'must be gzip, deflate, br or identity');
    case 'charset.unsupported':
      return unsupportedMedia('Content-Type', 'charset must be utf-8');
    case 'request.aborted':
    case 'request.size.invalid':
      return AppError.badField('body', 'was not received whole');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    // zlib errors while inflating a gzip/deflate/br body.
    return req.headers['content-encoding']
      ? AppError.badField('Content-Encoding', `the body does not decompress as ${String(req.headers['content-encoding'])}`)
      : AppError.badField('body', 'could not be read');
  }
  return error;
}

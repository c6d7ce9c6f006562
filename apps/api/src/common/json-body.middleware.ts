import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { json, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { AppError } from './app-error';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Request bodies are JSON, parsed here (not by Express) so that every parse failure reaches the
 * global filter and answers like any other bad input:
 * - a body that is not valid JSON → 400 naming `body`; of another Content-Type → 415;
 * - a body over `BODY_LIMIT` → 413;
 * - no body at all → validated as `{}`, so an endpoint whose fields are all optional needs none.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parse: RequestHandler;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.parse = json({ limit: config.BODY_LIMIT });
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.parse(req, res, (error?: unknown) => (error ? reject(translate(error)) : resolve()));
    });
    if (req.body === undefined) {
      if (hasBody(req) && !req.is('application/json')) {
        const rule = 'must be application/json for a request body';
        throw new AppError('unsupported_media_type', `Content-Type: ${rule}`, [{ field: 'Content-Type', message: rule }]);
      }
      req.body = {};
    }
    next();
  }
}

function translate(error: unknown): unknown {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed') return AppError.badField('body', 'is not valid JSON');
  if (type === 'entity.too.large') return new AppError('payload_too_large', 'body: is larger than the accepted limit (BODY_LIMIT)');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return AppError.badField('Content-Type', 'must use the utf-8 charset');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') return AppError.badField('body', 'was not received whole');
  return error;
}

import { randomUUID } from 'node:crypto';
import { VersioningType, type INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import type { AppConfig, Clock } from '@engram/config';
import { AppModule } from './app.module';
import { mountAdminDashboard } from './admin/admin-dashboard';
import { mountInspector } from './inspector/inspector';
import { applyEdgeProtection } from './edge/edge-protection';

/**
 * Builds the API (not yet listening): URI versioning (`/v1/...`), JSON bodies (parsed by
 * JsonBodyMiddleware), pino logs, the OpenAPI UI at `/docs`, graceful shutdown hooks.
 */
export async function createApp(config: AppConfig, options: { clock?: Clock } = {}): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options.clock), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // A path that does not decode (`/v1/memory/%FF`) fails inside Express's router, before any Nest
  // filter: answer it here in the API's error shape.
  app.use((req: Request, res: Response, next: NextFunction) => {
    try {
      decodeURIComponent(req.path);
      next();
    } catch {
      res.status(400).json({
        statusCode: 400,
        error: 'Bad Request',
        message: 'path: is not valid percent-encoded UTF-8',
        errors: [{ field: 'path', message: 'is not valid percent-encoded UTF-8' }],
        requestId: typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID(),
      });
    }
  });
  applyEdgeProtection(app, config);
  mountAdminDashboard(app);
  mountInspector(app);
  app.enableVersioning({ type: VersioningType.URI });
  app.enableShutdownHooks();
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.disable('x-powered-by');

  if (config.OPENAPI_ENABLED) {
    SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  }
  return app;
}

/**
 * The OpenAPI document of the API, as served at `/docs-json`: one definition for the docs, the
 * TypeScript client's generator (`npm run client:generate`) and its drift check.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Engram')
      .setDescription(
        'Long-term memory for LLM agents. Agents authenticate with a Mind Key, people with a JWT ' +
          '(and choose the mind with X-Mind-Id).',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'a user JWT or a Mind Key (emk_...)' })
      .build(),
  );
  return withErrorResponses(cleanupOpenApiDoc(document));
}

/** Every operation may answer AllExceptionsFilter's error body: documented as its `default` response. */
function withErrorResponses(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components };
  document.components.schemas = {
    ...document.components.schemas,
    ApiError: {
      type: 'object',
      description: 'The body of every error answer',
      properties: {
        statusCode: { type: 'integer', example: 400 },
        error: { type: 'string', example: 'Bad Request' },
        message: { type: 'string', example: 'key: must be snake_case' },
        requestId: { type: 'string' },
        errors: {
          type: 'array',
          description: 'each bad field of the request',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
          },
        },
      },
      required: ['statusCode', 'error', 'message'],
    },
  };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const) {
      const operation = item[method];
      if (operation && !operation.responses.default) {
        operation.responses.default = {
          description: 'an error: `{statusCode, error, message, requestId, errors?}`',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
        };
      }
    }
  }
  return document;
}

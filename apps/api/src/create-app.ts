import type { Server } from 'node:http';
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
import { API_ERROR_SCHEMA, API_ERROR_SCHEMA_NAME } from './common/api-docs';
import { normalizeZodDtoTypeArrays } from './common/openapi-nullable';
import { answerClientErrors, repeatedHeader, undecodable } from './edge/client-errors';
import { requestIdFor } from './common/request-id';

/**
 * Builds the API (not yet listening): URI versioning (`/v1/...`), JSON bodies (parsed by
 * JsonBodyMiddleware), pino logs, the OpenAPI UI at `/docs`, graceful shutdown hooks.
 */
export async function createApp(config: AppConfig, options: { clock?: Clock } = {}): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options.clock), {
    bufferLogs: true,
    bodyParser: false,
    // A start-up failure (a missing schema, a data directory in use) reaches main(), which prints
    // its message alone: Nest would log it inside its own stack trace (its buffered logs are
    // flushed only once the app is built) and exit.
    abortOnError: false,
    autoFlushLogs: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  // A path or a query parameter that does not decode (`/v1/memory/%FF`, `?q=%FF`) fails inside
  // Express's router, before any Nest filter, or reaches the handler still encoded (qs keeps what
  // it cannot decode): answer it here in the API's error shape.
  // So does a header that holds one value sent twice (`repeatedHeader`), on every route, public
  // ones, /metrics and the admin pages included.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const repeated = repeatedHeader(req);
    const field = repeated?.name ?? undecodable(req);
    if (field === undefined) return next();
    const rule = repeated ? `must be sent once; the request has ${repeated.count}` : 'is not valid percent-encoded UTF-8';
    const requestId = requestIdFor(req, res);
    res.status(400).json({ statusCode: 400, error: 'Bad Request', message: `${field}: ${rule}`, errors: [{ field, message: rule }], requestId });
  });
  answerClientErrors(app.getHttpServer() as Server);
  applyEdgeProtection(app, config);
  mountAdminDashboard(app);
  mountInspector(app);
  app.enableVersioning({ type: VersioningType.URI });
  app.enableShutdownHooks();
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.disable('x-powered-by');
  // An ETag is a memory's version, set by the routes that answer a memory (version-precondition.ts).
  // Express's own, a hash of any body, was on every other answer, errors included: an agent that
  // sent back the one of a 412 as If-Match got 412 forever (a newcomer's).
  app.set('etag', false);

  if (config.OPENAPI_ENABLED) {
    SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  }
  return app;
}

/**
 * The OpenAPI document of the API, as served at `/docs-json`: one definition for the docs, the
 * TypeScript client's generator (`npm run client:generate`) and its drift check. OpenAPI 3.0:
 * every operation needs a bearer token (a user JWT or a Mind Key) unless it says otherwise
 * (`security: []` on the public ones, see common/api-docs.ts `@Documented`). test/openapi.test.ts
 * lints it with Redocly and checks its nullable fields against zod.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  return withErrorResponses(cleanupOpenApiDoc(rawOpenApiDocument(app)));
}

/**
 * SwaggerModule's document before nestjs-zod's cleanup (its markers still in): what
 * {@link buildOpenApiDocument} starts from, and what test/openapi.test.ts inspects for fields
 * swagger misread.
 */
export function rawOpenApiDocument(app: INestApplication): OpenAPIObject {
  // Before swagger reads the DTOs: zod ≥ 4.5's type arrays would come out as arrays (common/openapi-nullable.ts).
  normalizeZodDtoTypeArrays(app);
  const config = new DocumentBuilder()
    .setTitle('Engram')
    .setDescription(
      'Long-term memory for LLM agents. Agents authenticate with a Mind Key, people with a JWT ' +
        '(and choose the mind with X-Mind-Id). Every error answers `{statusCode, error, message, requestId, errors?}`.',
    )
    .setVersion('1')
    // Relative: the document describes whichever host serves it (paths start with /v1, /health, /metrics).
    .addServer('/', 'the server that serves this document')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'a user JWT, a Mind Key (emk_...) or a tenant service key (esk_...)' })
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the operator set one' }, 'metrics_token')
    .addSecurityRequirements('bearer')
    .build();
  // package.json's license; DocumentBuilder.setLicense would add an empty `url`, which is not a URL.
  config.info.license = { name: 'UNLICENSED' };
  return SwaggerModule.createDocument(app, config);
}

/**
 * The API's error body as a component (common/api-docs.ts), and as the `default` answer of every
 * operation: the 5xx and anything not declared.
 */
function withErrorResponses(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components };
  document.components.schemas = { ...document.components.schemas, [API_ERROR_SCHEMA_NAME]: API_ERROR_SCHEMA };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const) {
      const operation = item[method];
      if (operation && !operation.responses.default) {
        operation.responses.default = {
          description: 'an error: `{statusCode, error, message, requestId, errors?}`',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${API_ERROR_SCHEMA_NAME}` } } },
        };
      }
    }
  }
  return document;
}

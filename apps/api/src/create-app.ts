import { randomUUID } from 'node:crypto';
import { VersioningType, type INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import type { AppConfig, Clock } from '@engram/config';
import { AppModule } from './app.module';
import { mountAdminDashboard } from './admin/admin-dashboard';

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
  mountAdminDashboard(app);
  app.enableVersioning({ type: VersioningType.URI });
  app.enableShutdownHooks();
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.disable('x-powered-by');

  if (config.OPENAPI_ENABLED) {
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
    SwaggerModule.setup('docs', app, cleanupOpenApiDoc(document), { jsonDocumentUrl: 'docs-json' });
  }
  return app;
}

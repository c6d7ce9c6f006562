import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TerminusModule } from '@nestjs/terminus';
import { ScheduleModule } from '@nestjs/schedule';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { loggedUrl } from './common/logged-url';
import { ZodSerializerInterceptor, ZodValidationPipe } from 'nestjs-zod';
import { APP_CONFIG, ConfigModule, type AppConfig, type Clock } from '@engram/config';
import { DbModule } from '@engram/db';
import { LlmModule } from '@engram/llm';
import { EmbeddingsModule } from '@engram/embeddings';
import { JobsModule } from '@engram/jobs';
import { ServicesModule } from '@engram/services';
import { EmbeddingDemand } from '@engram/queues';
import { MetricsModule } from '@engram/metrics';
import { AdminDashboard } from './admin/admin-dashboard';
import { AdminQueues } from './admin/admin-queues.provider';
import { OperatorAuth } from './admin/operator-auth.service';
import { ApiAuthGuard } from './auth/api-auth.guard';
import { AuthController } from './auth/auth.controller';
import { AuthService } from './auth/auth.service';
import { JWT_SECRET } from './auth/auth.tokens';
import { JwtStrategy } from './auth/jwt.strategy';
import { resolveJwtSecret } from './auth/jwt-secret';
import { KeyLookupCache } from './auth/key-lookup-cache';
import { MindKeyAuthService } from './auth/mind-key-auth.service';
import { ServiceKeyAuthService } from './auth/service-key-auth.service';
import { ServiceKeysController } from './service-keys/service-keys.controller';
import { ServiceKeysService } from './service-keys/service-keys.service';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import { StrayQueryGuard } from './common/stray-query.guard';
import { requestIdFor } from './common/request-id';
import { JsonBodyMiddleware } from './common/json-body.middleware';
import { HealthController } from './health/health.controller';
import { HttpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsController } from './metrics/metrics.controller';
import { MemoryController } from './memory/memory.controller';
import { MemoryStatsController } from './memory/memory-stats.controller';
import { MemoryReadService } from './memory/memory-read.service';
import { MemoryWriteService } from './memory/memory-write.service';
import { MindsController } from './minds/minds.controller';
import { MindsService } from './minds/minds.service';
import { LifecycleSettingsController } from './tenant/lifecycle-settings.controller';
import { DataRightsController } from './tenant/data-rights.controller';
import { DataRightsService } from './tenant/data-rights.service';
import { TenantExport } from './tenant/tenant-export.service';
import { TenantImport } from './tenant/tenant-import.service';
import { ConversationsController } from './conversations/conversations.controller';
import { ConversationLog } from './conversations/conversation-log';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';
import { McpController } from './mcp/mcp.controller';
import { McpServerFactory } from './mcp/mcp-server.factory';
import { ThrottlerGuard } from '@nestjs/throttler';
import { RateLimitModule } from './edge/rate-limit';

/** The API application: REST under /v1, probes under /health. */
@Module({})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // First, so that the time of a request includes parsing its body.
    consumer.apply(HttpMetricsMiddleware).forRoutes('{*path}');
    consumer.apply(JsonBodyMiddleware).forRoutes('*path');
  }

  /** @param config the parsed configuration; @param clock the time source (tests pass their own). */
  static forRoot(config: AppConfig, clock?: Clock): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, clock),
        LlmModule,
        EmbeddingsModule,
        ServicesModule,
        JobsModule,
        MetricsModule,
        ScheduleModule.forRoot(),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.LOG_LEVEL,
            transport: config.LOG_PRETTY ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
            // Honour a caller's X-Request-Id (tracing through proxies), else make one; echo it back.
            genReqId: (req: IncomingMessage, res: ServerResponse) => requestIdFor(req, res),
            // Every header that can carry a credential (helper 31: Proxy-Authorization and X-Api-Key
            // were logged in clear at debug), and what the answer sets.
            redact: ['req.headers.authorization', 'req.headers["proxy-authorization"]', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
            // A request's line names it, not its headers (a newcomer: every 4xx logged all of
            // them at warn); `debug` and `trace` keep pino's full request and response, redacted.
            ...(config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace'
              ? {}
              : {
                  wrapSerializers: false,
                  serializers: {
                    req: (req: IncomingMessage & { id?: unknown; originalUrl?: string }) => ({ id: req.id, method: req.method, url: loggedUrl(req.originalUrl ?? req.url ?? '') }),
                    res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
                  },
                }),
            customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
          },
        }),
        DbModule,
        TerminusModule,
        RateLimitModule,
        PassportModule,
        JwtModule.registerAsync({
          inject: [APP_CONFIG],
          useFactory: (cfg: AppConfig) => ({
            secret: resolveJwtSecret(cfg),
            signOptions: {
              algorithm: 'HS256',
              issuer: cfg.JWT_ISSUER,
              audience: cfg.JWT_AUDIENCE,
              expiresIn: cfg.JWT_TTL_SECONDS,
            },
          }),
        }),
      ],
      controllers: [AuthController, MindsController, ServiceKeysController, MemoryStatsController, MemoryController, ConversationsController, LifecycleSettingsController, DataRightsController, WebhooksController, HealthController, MetricsController, McpController],
      providers: [
        { provide: JWT_SECRET, inject: [APP_CONFIG], useFactory: resolveJwtSecret },
        JwtStrategy,
        AuthService,
        KeyLookupCache,
        MindKeyAuthService,
        ServiceKeyAuthService,
        MindsService,
        ServiceKeysService,
        DataRightsService,
        TenantExport,
        TenantImport,
        MemoryWriteService,
        MemoryReadService,
        ConversationLog,
        WebhooksService,
        EmbeddingDemand,
        AdminQueues,
        OperatorAuth,
        AdminDashboard,
        McpServerFactory,
        { provide: APP_GUARD, useClass: ApiAuthGuard },
        // After the auth guard: an authenticated request counts against its Mind Key or user.
        { provide: APP_GUARD, useClass: ThrottlerGuard },
        // After both: a stray parameter is the caller's mistake once they may call at all.
        { provide: APP_GUARD, useClass: StrayQueryGuard },
        { provide: APP_PIPE, useClass: ZodValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: ZodSerializerInterceptor },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}

import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, type AppConfig } from '@engram/config';
import { DbModule } from '@engram/db';
import { RedisConnection } from './redis.provider';

/**
 * The worker application: no HTTP, one processor per queue (they arrive with the
 * background-work issue). For now it connects to Postgres and Redis and waits.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({ pinoHttp: { level: config.LOG_LEVEL } }),
        DbModule,
      ],
      providers: [RedisConnection],
      exports: [RedisConnection],
    };
  }
}

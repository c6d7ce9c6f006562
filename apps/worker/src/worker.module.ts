import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, type AppConfig } from '@engram/config';
import { DbModule } from '@engram/db';
import { ScheduleModule } from '@nestjs/schedule';
import { LlmModule } from '@engram/llm';
import { EmbeddingsModule } from '@engram/embeddings';
import { JobsModule } from '@engram/jobs';
import { ServicesModule } from '@engram/services';
import { MetricsModule } from '@engram/metrics';
import { RedisConnection } from './redis.provider';
import { QueueWorkers } from './queue-workers.service';
import { WorkerMetricsServer } from './metrics-server';
import { WebhookWorker } from './webhook-worker.service';

/**
 * The worker application: no HTTP but Prometheus `/metrics` (WorkerMetricsServer); one BullMQ
 * worker per queue (QueueWorkers) running the jobs of libs/jobs against Postgres, the webhook
 * deliveries (WebhookWorker).
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
        ScheduleModule.forRoot(),
        LlmModule,
        EmbeddingsModule,
        ServicesModule,
        JobsModule,
        MetricsModule,
      ],
      providers: [RedisConnection, QueueWorkers, WebhookWorker, WorkerMetricsServer],
      exports: [RedisConnection, QueueWorkers, WebhookWorker, WorkerMetricsServer],
    };
  }
}

import { Global, Module } from '@nestjs/common';
import { EngramMetrics } from './metrics';

/**
 * Prometheus metrics for a Nest app (API or worker): one {@link EngramMetrics}, and so one
 * registry, per app instance. Global, so that services of other libs (the forgetting sweep) can
 * take it as an `@Optional()` dependency without importing this module; apps that do not import
 * it run without metrics. Needs the DbModule (memory counts).
 */
@Global()
@Module({ providers: [EngramMetrics], exports: [EngramMetrics] })
export class MetricsModule {}

import { Controller, Get, Headers, Inject, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { authChallenge } from '../auth/challenge';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import { EngramMetrics, bearerMatches } from '@engram/metrics';
import { Public } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';
import { AppError } from '@engram/services';

/**
 * Prometheus scrapes here (no `/v1`: it is not part of the versioned API). Public unless
 * `METRICS_TOKEN` is set; then `Authorization: Bearer <METRICS_TOKEN>` or 401. No JWT or Mind
 * Key: the metrics are the service's, not a tenant's.
 */
@ApiTags('metrics')
@Public()
@Controller({ path: 'metrics', version: VERSION_NEUTRAL })
export class MetricsController {
  constructor(
    private readonly metrics: EngramMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The Prometheus text exposition of this API process's metrics. @throws AppError 401 for a missing or wrong token */
  @Get()
  @Documented({
    summary: 'Prometheus metrics of this API process',
    // Anonymous unless the operator set METRICS_TOKEN.
    security: [{}, { metrics_token: [] }],
    rateLimited: false,
    errors: [{ status: 401, description: 'METRICS_TOKEN is set and the request does not carry it' }],
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'the Prometheus text exposition format', schema: { type: 'string' } })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const token = this.config.METRICS_TOKEN;
    if (token && !bearerMatches(authorization, token)) {
      res.setHeader('WWW-Authenticate', authChallenge(authorization));
      throw new AppError('unauthorized', 'this endpoint needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const { contentType, body } = await this.metrics.scrape();
    // end(), not send(): send() would rewrite the content type Prometheus reads the format from.
    res.status(200).setHeader('Content-Type', contentType);
    res.end(body);
  }
}

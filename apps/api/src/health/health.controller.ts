import { Controller, Get, Inject, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Kysely } from 'kysely';
import { DATABASE, SystemRepository, type DB } from '@engram/db';
import { Public } from '../auth/auth.decorators';
import { Documented } from '../common/api-docs';

/** Kubernetes probes: liveness says the process serves HTTP; readiness that the database answers. */
@ApiTags('health')
@Public()
@Controller({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    private readonly system: SystemRepository,
    @Inject(DATABASE) private readonly db: Kysely<DB>,
  ) {}

  /** 200 while the process runs. */
  @Get('live')
  @Documented({ summary: 'Liveness probe', public: true, rateLimited: false })
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** 200 when `select 1` succeeds within 2 s, else 503 naming the failing check. */
  @Get('ready')
  @Documented({ summary: 'Readiness probe (the database answers)', public: true, rateLimited: false })
  @HealthCheck()
  ready() {
    return this.health.check([
      async () => {
        const check = this.indicator.check('database');
        try {
          await Promise.race([
            this.system.ping(this.db),
            new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2000 ms')), 2000).unref()),
          ]);
          return check.up();
        } catch (error) {
          return check.down({ message: error instanceof Error ? error.message : String(error) });
        }
      },
    ]);
  }
}

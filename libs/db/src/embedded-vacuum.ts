import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@engram/config';
import type { DatabaseHandle } from './database';
import { DATABASE_HANDLE } from './db-handle';

/**
 * Embedded mode's autovacuum (docs/design.md §8): every `EMBEDDED_VACUUM_INTERVAL_MS` (5 s: the check is a catalog read,
 * and a bulk import's searches were planned without statistics until it ran),
 * the tables PostgreSQL's autovacuum would vacuum or analyze are (libs/db `autovacuumSql`, its
 * default thresholds). PGlite runs no background workers: without this an embedded database is
 * never analyzed (every search planned without statistics) and the rows its updates leave
 * behind are never reclaimed. Runs on the pool's one connection between units of work; nothing
 * with `DATABASE_URL`, where the server's autovacuum does it.
 */
@Injectable()
export class EmbeddedVacuum implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EmbeddedVacuum');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_HANDLE) private readonly handle: DatabaseHandle,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.handle.maintain || this.config.EMBEDDED_VACUUM_INTERVAL_MS <= 0) return;
    this.timer = setInterval(() => void this.run(), this.config.EMBEDDED_VACUUM_INTERVAL_MS).unref();
  }

  /** One pass now (tests, and the timer): @returns the commands run, `[]` with DATABASE_URL or when nothing is due. */
  async run(): Promise<string[]> {
    if (!this.handle.maintain || this.running) return [];
    const pass = this.handle.maintain();
    this.running = pass;
    try {
      const done = await pass;
      if (done.length > 0) this.logger.debug(done.join('; '));
      return done;
    } catch (error) {
      this.logger.warn(`embedded vacuum failed: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    } finally {
      this.running = undefined;
    }
  }

  /** Before DbModule closes the database: no new pass, and the one running finishes. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}

import type { Logger } from '@nestjs/common';

/**
 * A warning logged at most once per `everyMs` (default a minute): for an outage that every
 * request would otherwise report (Redis away under the rate limiter or a producer), where one
 * line a minute says as much as thousands.
 */
export class ThrottledWarning {
  private last = 0;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly everyMs = 60_000,
  ) {}

  /** Logs `message` (an Error's message after `prefix`) unless one was logged within `everyMs`. */
  warn(prefix: string, error?: unknown): void {
    const now = Date.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.logger.warn(error === undefined ? prefix : `${prefix}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

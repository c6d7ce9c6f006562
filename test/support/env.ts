/** Where the medium tests find their services (owner URL: a superuser or the schema owner). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The migrated template every test file copies; named per run so parallel runs do not collide. */
export const TEMPLATE_ENV = 'ENGRAM_TEST_TEMPLATE';

/** The same server as TEST_DATABASE_URL, another database, optionally another user. */
export function databaseUrl(database: string, user?: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  if (user) {
    url.username = user;
    url.password = '';
  }
  return url.toString();
}

/** Configuration with every periodic job off: tests run background work themselves, when they mean to. */
export { NO_SCHEDULES } from '@engram/config';

/** Configuration with the edge rate limits off (the suites send many requests from one client). */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '0',
  RATE_LIMIT_IP_PER_MINUTE: '0',
} as const;

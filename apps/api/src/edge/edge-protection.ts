import type { INestApplication } from '@nestjs/common';
import helmet from 'helmet';
import type { AppConfig } from '@engram/config';

/** Headers a browser client may send, and those it may read, when CORS is on. */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Content-Encoding', 'X-Mind-Id', 'X-Request-Id'];
const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Recall-Tokens',
  'X-Recall-Entries',
  'X-Write-Status',
];

/**
 * Security headers (helmet) on every answer, and CORS when `CORS_ORIGINS` is set. The CSP keeps
 * helmet's defaults (`default-src 'self'`, scripts from 'self' only, inline styles allowed), which
 * the OpenAPI UI at /docs and the admin pages (which set their own stricter CSP) work under;
 * `upgrade-insecure-requests` is left out so a plain-HTTP development server still loads its
 * own scripts. CORS: credentials are bearer tokens, never cookies, so no credentialed CORS.
 */
export function applyEdgeProtection(app: INestApplication, config: AppConfig): void {
  app.use(
    helmet({
      contentSecurityPolicy: { useDefaults: true, directives: { upgradeInsecureRequests: null } },
    }),
  );
  const origins = config.CORS_ORIGINS;
  if (origins && origins.length > 0) {
    app.enableCors({
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      credentials: false,
      maxAge: 600,
    });
  }
}

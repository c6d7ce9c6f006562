import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { projectRoot } from '@engram/db';

/** Where the memory inspector is served. */
export const INSPECTOR_PATH = '/inspector';

// Scripts and styles from this origin only (no inline ones), API calls to this origin only.
const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The folder of the page's static files, `public/` next to this module when it runs from the
 * sources (tsx, jest); from `dist/`, `apps/api/src/inspector/public` under the project root
 * (the build does not copy HTML or CSS, so they are always read from the sources).
 */
export function inspectorAssetsDir(): string {
  const local = join(__dirname, 'public');
  if (existsSync(join(local, 'index.html'))) return local;
  const dir = join(projectRoot(), 'apps', 'api', 'src', 'inspector', 'public');
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`memory inspector: no index.html in ${local} or ${dir}`);
  return dir;
}

/** chart.js's UMD build in node_modules (its package exports only the module builds). */
export function chartJsFile(): string {
  return join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
}

/**
 * The memory inspector: a static page at `/inspector` (`public/`: index.html, the module
 * inspector.js and the inspector-*.js modules it imports, inspector.css) and chart.js at
 * `/inspector/assets/chart.umd.min.js`. It holds no data and needs no session: the page signs in
 * with `POST /v1/auth/login` and calls the API with the user's JWT and `X-Mind-Id`, so the API's
 * own guard decides what it may see.
 */
export function inspectorRouter(): Router {
  const router = Router();
  const chart = chartJsFile();
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', INSPECTOR_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.get('/assets/chart.umd.min.js', (_req: Request, res: Response) => {
    res.type('text/javascript; charset=utf-8');
    res.sendFile(chart, { maxAge: '1d' });
  });
  const dir = inspectorAssetsDir();
  // `/inspector` itself answers the page (express.static would redirect it to `/inspector/`).
  router.get('/', (_req: Request, res: Response) => res.sendFile(join(dir, 'index.html')));
  router.use(express.static(dir, { index: false, redirect: false, fallthrough: true, dotfiles: 'ignore' }));
  return router;
}

/**
 * Mounts the inspector on the API's Express instance; call it before `app.init()` (Nest adds its
 * not-found handler at init). Requests it does not serve fall through to the API (a 404).
 */
export function mountInspector(app: INestApplication): void {
  app.use(INSPECTOR_PATH, inspectorRouter());
}

import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Injectable, Logger, type INestApplication } from '@nestjs/common';
import { json, Router, urlencoded, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ADMIN_PATH, adminRequestId, sendAdminError, sendLoginPage } from './admin-pages';
import { AdminQueues, RedisUnavailableError } from './admin-queues.provider';
import { ADMIN_SESSION_MS, OperatorAuth } from './operator-auth.service';


const CLOSED = 'the admin dashboard is closed: ENGRAM_OPERATOR_TOKEN is not set (set it, at least 32 characters, to open it)';
const NEEDS_REDIS =
  'the queue dashboard needs REDIS_URL: without it (embedded mode) background work runs inside the API process and there are no queues to show';
const OPERATOR_ONLY =
  'the queue dashboard is for the platform operator only (ENGRAM_OPERATOR_TOKEN): the queues hold every tenant\'s jobs and cannot be narrowed to one tenant';
const SIGN_IN = `missing credentials: send Authorization: Bearer <operator token>, or sign in at ${ADMIN_PATH}/login`;
const LOGIN_TYPES = 'POST /admin/login takes the token as a form (application/x-www-form-urlencoded, field "token") or as JSON (application/json, {"token": "..."})';

/** An error bull-board's own router met (a Redis command that failed, a bug): answered by ours. */
class BoardError extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/**
 * The BullMQ dashboard ([bull-board](https://github.com/felixmosh/bull-board)) at
 * `/admin/queues`, with a sign-in page at `GET/POST /admin/login` and `POST /admin/logout`.
 *
 * Who may use it: the platform operator only, by `Authorization: Bearer <ENGRAM_OPERATOR_TOKEN>`
 * or by the session cookie that signing in sets. Tenant credentials (an owner's JWT, a Mind Key)
 * get 403, by design: every queue holds the jobs of all tenants (fan-outs, per-tenant jobs whose
 * ids and payloads carry tenant ids), and bull-board can hide whole queues from a request but not
 * filter the jobs inside one, nor its counts, schedulers and Redis statistics. A read-only view
 * "of its own jobs" would therefore still show a tenant the others' job ids and activity.
 *
 * Answers, in order:
 * - 404 for everything when ENGRAM_OPERATOR_TOKEN is unset (the dashboard is closed);
 * - 401 without credentials or with wrong ones: JSON in the API's error shape, or the sign-in
 *   page (still 401) for a browser asking for a page;
 * - 403 for a valid tenant credential;
 * - 404 for the operator when REDIS_URL is unset (embedded mode has no queues);
 * - 503 for the operator while Redis does not answer (checked before every request reaches
 *   bull-board: a PING with a short timeout), naming Redis; the rest of the API is unaffected;
 * - otherwise bull-board: the page, its static files and its API under `/admin/queues/api`.
 *   Whatever bull-board's router fails with is answered in the API's error shape too (503 when
 *   Redis went away meanwhile, else 500).
 *
 * Signing out (`POST /admin/logout`) clears the browser's cookie and revokes that cookie in this
 * process only: session cookies are stateless HMACs, so a copy of the cookie still works on
 * another API process, or on this one after a restart, until it expires ({@link ADMIN_SESSION_MS})
 * or ENGRAM_OPERATOR_TOKEN is rotated.
 *
 * The router runs in front of Nest (mounted by {@link mountAdminDashboard}), so the API's global
 * guard and JSON body parser never see these requests; it enforces its own authentication.
 */
@Injectable()
export class AdminDashboard {
  private readonly logger = new Logger('AdminDashboard');

  constructor(
    private readonly auth: OperatorAuth,
    private readonly queues: AdminQueues,
  ) {}

  /** The Express router for everything under {@link ADMIN_PATH}. */
  router(): Router {
    const router = Router();
    router.use((req: Request, res: Response, next: NextFunction) => {
      adminRequestId(req, res);
      // The dashboard can empty and delete queues: never inside another site's frame.
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      next();
    });
    router.get('/login', (req: Request, res: Response) => (this.auth.enabled ? sendLoginPage(req, res, 200) : sendAdminError(req, res, 404, CLOSED)));
    router.post(
      '/login',
      urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
      json({ limit: '4kb', strict: true }),
      (req: Request, res: Response) => this.login(req, res),
    );
    router.post('/logout', (req: Request, res: Response) => {
      const cookie = this.auth.sessionCookie(req);
      if (cookie !== undefined) this.auth.revokeSession(cookie);
      res.append('Set-Cookie', this.auth.clearSessionSetCookie(req.secure));
      res.redirect(303, `${ADMIN_PATH}/login`);
    });
    router.use('/queues', (req: Request, res: Response, next: NextFunction) => this.gate(req, res, next), this.board());
    router.use((req: Request, res: Response) => sendAdminError(req, res, 404, 'not found'));
    router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
      if (error instanceof BoardError) return this.boardFailed(error, req, res);
      // A sign-in form that is too large or not urlencoded-parseable: the caller's fault, not a 500.
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        sendAdminError(req, res, 400, 'the request could not be read');
        return;
      }
      this.logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
      if (!res.headersSent) sendAdminError(req, res, 500, 'internal error');
    });
    return router;
  }

  private async gate(req: Request, res: Response, next: NextFunction): Promise<void> {
    const verdict = await this.auth.authenticate(req);
    switch (verdict.kind) {
      case 'operator':
        return this.reachable(req, res, next);
      case 'closed':
        return sendAdminError(req, res, 404, CLOSED);
      case 'tenant':
        this.logger.warn(`admin dashboard refused a tenant ${({ jwt: 'JWT', mind_key: 'Mind Key', service_key: 'service key' } as const)[verdict.credential]} from ${req.ip}`);
        return sendAdminError(req, res, 403, OPERATOR_ONLY);
      case 'invalid':
        this.logger.warn(`admin dashboard refused invalid credentials from ${req.ip}`);
        return wantsPage(req) ? sendLoginPage(req, res, 401, verdict.reason) : sendAdminError(req, res, 401, verdict.reason);
      case 'anonymous':
        return wantsPage(req) ? sendLoginPage(req, res, 401) : sendAdminError(req, res, 401, SIGN_IN);
    }
  }

  // The operator only: then a 404 without REDIS_URL, a 503 while Redis does not answer, else
  // bull-board. bull-board must not meet a Redis that is down: its listing awaits BullMQ calls
  // that, without a ready connection, hang or reject where nobody listens.
  private async reachable(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!this.queues.configured) return sendAdminError(req, res, 404, NEEDS_REDIS);
    try {
      await this.queues.ensureReachable();
    } catch (error) {
      res.setHeader('Retry-After', '10');
      return sendAdminError(req, res, 503, error instanceof Error ? error.message : String(error));
    }
    next();
  }

  private boardFailed(error: BoardError, req: Request, res: Response): void {
    if (res.headersSent) return;
    const status = (error.original as { statusCode?: unknown; status?: unknown }).statusCode ?? (error.original as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendAdminError(req, res, status, error.message);
    if (this.queues.isDown() || error.original instanceof RedisUnavailableError) {
      res.setHeader('Retry-After', '10');
      return sendAdminError(req, res, 503, `the queue dashboard lost Redis (REDIS_URL) while answering: ${error.message}`);
    }
    this.logger.error(`queue dashboard: ${error.original instanceof Error ? error.original.stack ?? error.message : error.message}`);
    sendAdminError(req, res, 500, `the queue dashboard failed: ${error.message}`);
  }

  private login(req: Request, res: Response): void {
    if (!this.auth.enabled) return sendAdminError(req, res, 404, CLOSED);
    const asJson = req.is('application/json') === 'application/json';
    const form = req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
    if (!asJson && !form) return sendAdminError(req, res, 415, `unsupported content type: ${LOGIN_TYPES}`);
    // A script that sent JSON gets JSON errors; a browser's form gets the page again.
    const refuse = (message: string): void => (asJson ? sendAdminError(req, res, 401, message) : sendLoginPage(req, res, 401, message));
    const body: unknown = req.body;
    const token: unknown = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).token : undefined;
    if (typeof token !== 'string' || token === '') return refuse(asJson ? `missing "token": ${LOGIN_TYPES}` : 'Enter the operator token.');
    if (!this.auth.isOperatorToken(token)) {
      this.logger.warn(`failed admin sign-in from ${req.ip}`);
      return refuse('That is not the operator token.');
    }
    res.append('Set-Cookie', this.auth.sessionSetCookie(this.auth.issueSession(), req.secure));
    res.redirect(303, `${ADMIN_PATH}/queues`);
  }

  // bull-board, built at the first request that gets past the gate: the queues only exist once
  // Redis has been reachable. bull-board keeps the queue adapters for the life of the app.
  private board(): RequestHandler {
    let handler: RequestHandler | undefined;
    return (req: Request, res: Response, next: NextFunction) => {
      handler ??= this.createBoard();
      handler(req, res, next);
    };
  }

  private createBoard(): RequestHandler {
    const serverAdapter = new ExpressAdapter().setBasePath(`${ADMIN_PATH}/queues`);
    createBullBoard({
      queues: this.queues.queues.map((q) => new BullMQAdapter(q)),
      serverAdapter,
      options: { uiConfig: { boardTitle: 'Engram queues' } },
    });
    // bull-board answers its own failures as {"error": {"key": ...}, "message": ...}; throwing
    // from its error handler hands them to ours instead, in the API's error shape.
    serverAdapter.setErrorHandler((error: Error) => {
      throw new BoardError(error);
    });
    return serverAdapter.getRouter() as RequestHandler;
  }
}

// A browser navigating to the dashboard gets the sign-in page; scripts and bull-board's own API
// and asset requests get JSON.
function wantsPage(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (req.path.startsWith('/api/') || req.path.startsWith('/static/')) return false;
  return req.accepts(['json', 'html']) === 'html';
}

/**
 * Mounts the admin router on the API's Express instance. Call it before `app.init()`: Nest adds
 * its routes and its not-found handler at init, and anything mounted after them is never reached.
 */
export function mountAdminDashboard(app: INestApplication): void {
  app.use(ADMIN_PATH, app.get(AdminDashboard).router());
}

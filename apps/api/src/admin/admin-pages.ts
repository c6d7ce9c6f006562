import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { authChallenge } from '../auth/challenge';
import type { ErrorBody } from '../common/all-exceptions.filter';
import { requestIdFor } from '../common/request-id';

/** Where the admin router is mounted; the cookie's Path and every link depend on it. */
export const ADMIN_PATH = '/admin';

// Our own pages load nothing and run no script; they only post the form to this origin.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The request id of an `/admin` request (common/request-id `requestIdFor`: the admin router runs
 * before Nest's middleware, so pino-http has not given the request one).
 */
export function adminRequestId(req: Request, res: Response): string {
  return requestIdFor(req, res);
}

/** Answers in the API's error shape `{statusCode, error, message, requestId}`. */
export function sendAdminError(req: Request, res: Response, statusCode: number, message: string): void {
  const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, requestId: adminRequestId(req, res) };
  if (statusCode === 401) res.setHeader('WWW-Authenticate', authChallenge(req.headers.authorization, 'engram-admin'));
  res.status(statusCode).type('application/json; charset=utf-8').json(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The sign-in page: one password field posted to `POST /admin/login`. Served with 200 at
 * `GET /admin/login` and with 401 wherever a browser reaches the dashboard without a session,
 * so the status stays honest while a person still sees what to do.
 */
export function sendLoginPage(req: Request, res: Response, statusCode: number, message?: string): void {
  adminRequestId(req, res);
  if (statusCode === 401) res.setHeader('WWW-Authenticate', authChallenge(req.headers.authorization, 'engram-admin'));
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  const notice = message ? `<p class="notice" role="alert">${escapeHtml(message)}</p>` : '';
  res
    .status(statusCode)
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram admin: sign in</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 26rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
  label, input, button { display: block; width: 100%; box-sizing: border-box; }
  input { margin: .4rem 0 1rem; padding: .5rem; font: inherit; }
  button { padding: .5rem; font: inherit; cursor: pointer; }
  .notice { color: #a40000; }
</style>
</head>
<body>
<h1>Engram admin</h1>
<p>The queue dashboard is for the platform operator. Sign in with the operator token
(<code>ENGRAM_OPERATOR_TOKEN</code>).</p>
${notice}
<form method="post" action="${ADMIN_PATH}/login">
  <label for="token">Operator token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
  <button type="submit">Sign in</button>
</form>
</body>
</html>
`);
}

import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request } from 'express';

const decodes = (text: string): boolean => {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
};

/**
 * The first part of a request's URL that is not valid percent-encoded UTF-8 (RFC 3986 §2.1,
 * WHATWG URL's application/x-www-form-urlencoded): `path`, a query parameter's name, or `query`
 * when the name itself does not decode. Undefined when all of it decodes.
 */
export function undecodable(req: Request): string | undefined {
  if (!decodes(req.path)) return 'path';
  const at = req.originalUrl.indexOf('?');
  if (at < 0) return undefined;
  for (const part of req.originalUrl.slice(at + 1).split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (!decodes(name)) return 'query';
    if (eq >= 0 && !decodes(part.slice(eq + 1))) return decodeURIComponent(name.replace(/\+/g, ' '));
  }
  return undefined;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over
 * `--max-http-header-size`, 16 KiB by default; malformed request lines; a request that took too
 * long) answer in the API's error shape, `{statusCode, error, message, requestId}`, instead of
 * Node's empty body: 431, 408, 413 (chunk extensions too long) or 400, and the connection closes
 * (Node's own statuses, node:_http_server `socketOnError`).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413 : 400;
    const message =
      status === 431
        ? 'headers: the request line (URL) and headers together are larger than the server accepts (16 KiB, Node.js --max-http-header-size)'
        : status === 408
          ? 'request: not received in time'
          : status === 413
            ? 'body: chunk extensions are too long'
            : 'request: is not valid HTTP/1.1';
    // The request's own X-Request-Id is past reading (its headers are what failed): a new one, in
    // the header as on every other answer.
    const requestId = randomUUID();
    const body = JSON.stringify({ statusCode: status, error: REASONS[status], message, requestId });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

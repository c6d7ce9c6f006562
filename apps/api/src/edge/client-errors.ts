import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { Request } from 'express';

const logger = new Logger('HTTP');

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

/**
 * Headers that hold one value: Node keeps the first of repeated `Authorization` and
 * `Content-Type` and drops the rest silently, and joins repeated `X-Mind-Id` with ", " (read as a
 * malformed id); which one the client meant would be a guess (RFC 9110 §5.3; RFC 6750 §3.1
 * calls a repeated credential a malformed request).
 */
const SINGLE_VALUED = ['authorization', 'content-type', 'content-encoding', 'x-mind-id', 'x-request-id'];

/** The first single-valued header the request repeats, as sent, with how many times; undefined when none is. */
export function repeatedHeader(req: Request): { name: string; count: number } | undefined {
  const counts = new Map<string, { name: string; count: number }>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const raw = req.rawHeaders[i] as string;
    const lower = raw.toLowerCase();
    if (!SINGLE_VALUED.includes(lower)) continue;
    const seen = counts.get(lower);
    if (seen) seen.count += 1;
    else counts.set(lower, { name: raw, count: 1 });
  }
  return [...counts.values()].find((h) => h.count > 1);
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
    // the header as on every other answer, and in the log as the API's 4xx are (helper 31's).
    const requestId = randomUUID();
    logger.warn(`request refused by the HTTP parser: ${status} ${REASONS[status]} (${error.code ?? 'no code'}); requestId ${requestId}`);
    const body = JSON.stringify({ statusCode: status, error: REASONS[status], message, requestId });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

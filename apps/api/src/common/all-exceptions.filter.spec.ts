import type { ArgumentsHost } from '@nestjs/common';
import type { PinoLogger } from 'nestjs-pino';
import { AllExceptionsFilter, type ErrorBody } from './all-exceptions.filter';

/** What the filter answered: status, headers and body. */
function answer(exception: unknown): { status: number; headers: Record<string, string>; body: ErrorBody } {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown as ErrorBody };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (out.headers[name.toLowerCase()] = value),
    status: (code: number) => ((out.status = code), response),
    json: (body: ErrorBody) => void (out.body = body),
  };
  const host = { switchToHttp: () => ({ getRequest: () => ({ id: 'req-1' }), getResponse: () => response }) } as unknown as ArgumentsHost;
  new AllExceptionsFilter({ error: () => undefined } as unknown as PinoLogger).catch(exception, host);
  return out;
}

/** An error as node-postgres raises it for a failed statement. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('AllExceptionsFilter', () => {
  it.each([
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access due to concurrent update'],
  ])('answers %s (%s) that outlived the retries with 503 and Retry-After, not 500', (code, message) => {
    const res = answer(pgError(code, message));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.stringMatching(/retry shortly/), requestId: 'req-1' });
  });

  it('answers a request that arrived while the process shut down (its pool closed) with 503, not 500', () => {
    const res = answer(new Error('driver has already been destroyed'));
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/the database is unavailable; retry shortly/);
  });

  it('keeps 500 for an error it does not know, and tells nothing of it', () => {
    const res = answer(new Error('secret internals'));
    expect(res.status).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'internal error', requestId: 'req-1' });
  });
});

import type { Request } from 'express';
import { repeatedHeader } from './client-errors';

const request = (rawHeaders: string[]) => ({ rawHeaders }) as unknown as Request;

describe('repeatedHeader', () => {
  it('names the first single-valued header sent twice, as sent, with its count', () => {
    expect(repeatedHeader(request(['Content-Type', 'application/json', 'content-type', 'text/plain', 'Accept', '*/*']))).toEqual({ name: 'Content-Type', count: 2 });
    expect(repeatedHeader(request(['authorization', 'Bearer a', 'AUTHORIZATION', 'Bearer b', 'Authorization', 'Bearer c']))).toEqual({ name: 'authorization', count: 3 });
  });

  it('leaves headers that may repeat alone (Accept, Cookie, a list header)', () => {
    expect(repeatedHeader(request(['Accept', 'a', 'Accept', 'b', 'Cache-Control', 'no-cache', 'Cache-Control', 'no-store', 'Authorization', 'Bearer a']))).toBeUndefined();
  });
});

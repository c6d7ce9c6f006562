import { Injectable, type PipeTransform } from '@nestjs/common';
import { validate } from 'uuid';
import type { z } from 'zod';
import { AppError } from '@engram/services';

/**
 * True for an RFC 9562 UUID in text (versions 1-8 with the RFC variant, or the nil and max
 * UUIDs), in either case: what zod's `z.uuid()` accepts in bodies, and every id this service
 * issues (v7 from `newId`, v4 from PostgreSQL).
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}

export { newId } from '@engram/db';

/**
 * Path ids: anything that is not a UUID cannot name a record, so it answers 404 like a
 * missing or foreign id does.
 */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  constructor(private readonly what: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw AppError.notFound(this.what);
    return value.toLowerCase();
  }
}

/** Opaque page cursor from the last id of a page. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** @throws AppError 400 naming `cursor` when it is not one this API issued. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isUuid(id)) throw AppError.badField('cursor', 'is not a cursor returned by this endpoint');
  return id.toLowerCase();
}

/**
 * Opaque page cursor of a list ordered by more than an id (e.g. a memory's links: weight,
 * relation, id): the last item's sort key as JSON, base64url.
 */
export function encodeKeyCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * The sort key of a cursor from {@link encodeKeyCursor}, checked against `shape`.
 * @throws AppError 400 naming `cursor` when it is not one this endpoint issued
 */
export function decodeKeyCursor<T>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const parsed = shape.safeParse(key);
  if (!parsed.success) throw AppError.badField('cursor', 'is not a cursor returned by this endpoint');
  return parsed.data;
}

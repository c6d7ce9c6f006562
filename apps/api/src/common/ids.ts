import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '@engram/services';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a textual UUID of any version. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
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

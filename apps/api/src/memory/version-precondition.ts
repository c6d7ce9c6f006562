import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError } from '@engram/services';

/**
 * Optimistic concurrency on a memory (RFC 9110 §8.8.3 ETag, §13.1.1 If-Match): a memory's entity
 * tag is its version, `"3"`, sent as `ETag` with each memory answered. A change sent with
 * `If-Match: "3"` is made only if the memory is still at version 3, else 412, so that two agents
 * editing one memory cannot overwrite each other unseen (a tester's find, after mem0's reports of
 * lost updates). The tag stands for the memory's written fields, which a version records; its
 * lifecycle bookkeeping (retention, accesses) moves on reads without a new version.
 */
export type VersionPrecondition = { any: true } | { versions: readonly number[] };

/** The `ETag` of a memory at `version`: a strong tag, `"<version>"`. */
export function versionTag(version: number): string {
  return `"${version}"`;
}

// An entity tag (RFC 9110 §8.8.3): optionally weak, then a quoted string without `"` (which may
// hold a comma), read where the list's last one ended.
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/y;

/**
 * Reads `If-Match`. @returns undefined without the header; `{any}` for `*`; else the versions its
 * strong tags name (a weak tag, or one that is no version of ours, names none: strong comparison,
 * §13.1.1) @throws AppError 400 naming `If-Match` when it is not `*` nor a list of entity tags
 */
export function ifMatch(header: string | string[] | undefined): VersionPrecondition | undefined {
  if (header === undefined) return undefined;
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  if (value === '*') return { any: true };
  const versions: number[] = [];
  const malformed = () => AppError.badField('If-Match', 'must be * or entity tags such as "3" (a memory\'s ETag, its version)');
  // A list: tags separated by commas, with empty elements and spaces allowed (RFC 9110 §5.6.1).
  let at = 0;
  let tags = 0;
  while (at < value.length) {
    if (value[at] === ',' || value[at] === ' ' || value[at] === '\t') {
      at += 1;
      continue;
    }
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(value);
    if (!tag) throw malformed();
    tags += 1;
    if (!tag[1] && /^[1-9]\d{0,9}$/.test(tag[2] as string)) versions.push(Number(tag[2]));
    at = ENTITY_TAG.lastIndex;
    while (value[at] === ' ' || value[at] === '\t') at += 1;
    if (at < value.length && value[at] !== ',') throw malformed();
  }
  if (tags === 0) throw malformed();
  return { versions };
}

/** @throws AppError 412 when the memory, at `version` (undefined: there is none yet), does not meet the precondition (RFC 9110 §13.1.1: `*` needs a memory) */
export function requireVersion(precondition: VersionPrecondition | undefined, version: number | undefined): void {
  if (!precondition) return;
  if (version === undefined) throw new AppError('precondition_failed', 'If-Match: there is no such memory yet; send the write without If-Match to create it');
  if ('any' in precondition || precondition.versions.includes(version)) return;
  throw new AppError('precondition_failed', `If-Match: the memory is at version ${version} (ETag ${versionTag(version)}), not ${precondition.versions.map(versionTag).join(', ') || 'the tag sent'}; read it again and reapply your change`);
}

/** A route parameter: the request's `If-Match`, read by {@link ifMatch} (400 when malformed). */
export const IfMatch = createParamDecorator((_: unknown, ctx: ExecutionContext) => ifMatch(ctx.switchToHttp().getRequest<Request>().headers['if-match']));

/** The OpenAPI statement of a route's `If-Match`. */
export function ApiIfMatch(when = 'the memory has changed since'): MethodDecorator {
  return ApiHeader({ name: 'If-Match', required: false, description: `the ETag of the version you read, e.g. "3": 412 if ${when}` });
}

import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse, type SchemaObject, type SecurityRequirementObject } from '@nestjs/swagger';

/**
 * The OpenAPI documentation of a route, in one decorator: its summary, the error answers it can
 * give (each with the API's error body, {@link API_ERROR_SCHEMA}) and who may call it.
 *
 *   @Documented({ summary: 'Get a memory', errors: [404] })
 *   @Documented({ summary: 'Register a tenant', public: true, errors: [400, { status: 409, description: 'the e-mail is taken' }, 413, 415] })
 *
 * Added to every route unless said otherwise, because a global guard answers them on every route:
 * - 401 (the auth guard: missing, unknown, expired or revoked credential), unless `public`;
 * - 429 (the rate limit, with `Retry-After`), unless `rateLimited: false` (the probes and
 *   `/metrics`, which apps/api/src/edge/rate-limit.ts never limits).
 * Everything else the route can answer goes in `errors`: 400 for a body, query or header it
 * validates, 403 for `@UsersOnly` routes (a Mind Key, or a role without the right), 404 for an
 * id in the path or a mind named by `X-Mind-Id`, 409, and 413 and 415 for a route with a body.
 * test/openapi.test.ts fails for a route without a summary, and for one whose documented answers
 * disagree with its guards, parameters or body.
 */
export function Documented(options: DocumentedOptions): MethodDecorator {
  const errors = new Map<ApiErrorStatus, string>();
  if (!options.public) errors.set(401, ERROR_DESCRIPTIONS[401]);
  if (options.rateLimited !== false) errors.set(429, ERROR_DESCRIPTIONS[429]);
  for (const error of options.errors ?? []) {
    if (typeof error === 'number') errors.set(error, ERROR_DESCRIPTIONS[error]);
    else errors.set(error.status, error.description);
  }
  const security = options.security ?? (options.public ? [] : undefined);
  return applyDecorators(
    ApiOperation({
      summary: options.summary,
      ...(options.description !== undefined ? { description: options.description } : {}),
      // An operation's own `security` replaces the document's (a bearer token): `[]` is "none".
      ...(security !== undefined ? { security } : {}),
    }),
    ...[...errors.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, description]) =>
        ApiResponse({
          status,
          description,
          // JSON whatever the route produces (recall's text, the export's JSONL): AllExceptionsFilter's body.
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${API_ERROR_SCHEMA_NAME}` } } },
          ...(status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
        }),
      ),
  );
}

/** The error statuses the API answers (libs/services ERROR_STATUS, and the rate limit's 429). */
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 429 | 503;

export interface DocumentedOptions {
  /** A short title, imperative, no final period: "Search memories". */
  summary: string;
  /** Longer prose (Markdown); the route's docstring is the place for the details otherwise. */
  description?: string;
  /** The error answers beyond 401 and 429: a status (standard wording) or a status with the route's own wording. */
  errors?: ReadonlyArray<ApiErrorStatus | { status: ApiErrorStatus; description: string }>;
  /** Callable without a credential (`@Public()` routes): documented as `security: []`, no 401 added. */
  public?: boolean;
  /** false for routes the rate limit never counts (no 429 added). */
  rateLimited?: boolean;
  /** A security requirement of the route's own, e.g. `[{}, {metrics_token: []}]` (optional token). */
  security?: SecurityRequirementObject[];
}

export const API_ERROR_SCHEMA_NAME = 'ApiError';

/** The body of every error answer (AllExceptionsFilter's `ErrorBody`). */
export const API_ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'The body of every error answer',
  properties: {
    statusCode: { type: 'integer', example: 400 },
    error: { type: 'string', example: 'Bad Request' },
    message: { type: 'string', example: 'key: must be snake_case' },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      description: 'each bad field of the request',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'message'],
      },
    },
  },
  required: ['statusCode', 'error', 'message'],
};

/** The standard wording of each error answer. */
export const ERROR_DESCRIPTIONS: Record<ApiErrorStatus, string> = {
  400: 'bad input: `message` and `errors[].field` name each bad field',
  401: 'missing, unknown, expired or revoked credential',
  403: "the credential may not do this (a Mind Key on a person's route, a service key without the scope, or a role without the right)",
  404: "not found: no such record in the caller's tenant (another tenant's ids answer 404 too)",
  409: 'conflicts with an existing record',
  412: '`If-Match` names another version than the memory\'s (its `ETag`): someone changed it since you read it; read it again',
  413: 'the body is larger than BODY_LIMIT',
  415: 'Content-Type (application/json, utf-8) or Content-Encoding (gzip, deflate, br) not accepted',
  429: 'rate limit exceeded (per Mind Key, user, service key and mind, or client IP per minute): retry after `Retry-After` seconds',
  503: 'the database is unavailable: retry after `Retry-After` seconds',
};

const RETRY_AFTER = { description: 'seconds to wait before retrying', schema: { type: 'integer' as const } };

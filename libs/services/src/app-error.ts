/** Error codes of the API and the HTTP status each maps to (one table, CONVENTIONS "Errors"). */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem with one input field: `field` is a path like `items[3].key` or a header name. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A domain error with a code; the global filter turns it into `{statusCode, error, message, requestId}`. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }

  /** 400 for one field: the message reads `<field>: <rule>`. */
  static badField(field: string, rule: string): AppError {
    return new AppError('bad_request', `${field}: ${rule}`, [{ field, message: rule }]);
  }

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found`);
  }
}

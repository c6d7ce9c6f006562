"""Exceptions: every failure of a call is an :class:`EngramError`.

An answer with a 4xx or 5xx status becomes the subclass for its status, carrying the API's error
body ``{statusCode, error, message, requestId, errors?}`` (``apps/api/src/common/all-exceptions.filter.ts``):
``status``, ``message``, ``request_id`` (quote it when reporting a problem) and ``field_errors``,
one ``{"field", "message"}`` per bad input (``importance: must be from 0 to 1``). No answer at all
(connection refused, DNS, timeout) is an :class:`EngramConnectionError` (``status`` None).

::

    EngramError
    ├── EngramConnectionError          no answer (EngramTimeoutError: none in time)
    ├── BadRequestError         400    a field breaks a rule: see field_errors
    ├── AuthenticationError     401    missing, malformed, expired, revoked or unknown credential
    ├── PermissionDeniedError   403    valid credential, not for this (a Mind Key on /v1/minds)
    ├── NotFoundError           404    no such id, or another tenant's or mind's
    ├── ConflictError           409    clashes with an existing record (a mind's name)
    ├── PreconditionFailedError 412    if_match named another version: the memory changed since
    ├── PayloadTooLargeError    413
    ├── UnsupportedMediaTypeError 415
    ├── RateLimitError          429    retry_after seconds
    └── ServerError             5xx    (ServiceUnavailableError: 503, retry_after seconds)
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type

import httpx

from .models import FieldError

__all__ = [
    "EngramError",
    "EngramConnectionError",
    "EngramTimeoutError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "error_from_response",
]


class EngramError(Exception):
    """Base of every error this client raises.

    Attributes:
        message: what went wrong, as the API said it (``key: must be snake_case: ...``).
        status: the HTTP status, or None when no answer came.
        error: the status's name (``Bad Request``), or None.
        request_id: the API's id of the request (its logs know it), or None.
        field_errors: the bad inputs, ``[{"field": "importance", "message": "must be from 0 to 1"}]``;
            empty when the failure is not about a field.
        body: the decoded error body (a dict), or None when it was not JSON.
        response: the ``httpx.Response``, or None when no answer came.
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        error: Optional[str] = None,
        request_id: Optional[str] = None,
        field_errors: Sequence[FieldError] = (),
        body: Optional[Dict[str, Any]] = None,
        response: Optional[httpx.Response] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error = error
        self.request_id = request_id
        self.field_errors: List[FieldError] = list(field_errors)
        self.body = body
        self.response = response

    @property
    def fields(self) -> List[str]:
        """The names of the bad fields, in the API's order (``["importance"]``)."""
        return [problem["field"] for problem in self.field_errors]

    def __str__(self) -> str:
        head = f"{self.status} {self.error or ''}".strip() + ": " if self.status is not None else ""
        tail = f" (request {self.request_id})" if self.request_id else ""
        return f"{head}{self.message}{tail}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, message={self.message!r}, field_errors={self.field_errors!r}, request_id={self.request_id!r})"


class EngramConnectionError(EngramError):
    """No answer from the API: it is not running at the base URL, the network failed, ..."""


class EngramTimeoutError(EngramConnectionError):
    """No answer within the client's ``timeout`` (seconds)."""


class BadRequestError(EngramError):
    """400: the request breaks a rule; :attr:`field_errors` names each bad field and its rule."""


class AuthenticationError(EngramError):
    """401: no credential, or one the API does not accept (malformed, expired, revoked, unknown)."""


class PermissionDeniedError(EngramError):
    """403: a valid credential that may not do this (a Mind Key on a person's route, a role too low,
    a Mind Key naming another mind in ``mind_id``)."""


class NotFoundError(EngramError):
    """404: no such record, or one of another tenant or mind (the API does not tell them apart)."""


class ConflictError(EngramError):
    """409: clashes with an existing record (a mind's name is taken)."""


class PreconditionFailedError(EngramError):
    """412: the memory is no longer at the version ``if_match`` named (someone changed it since you
    read it), or does not exist; nothing was written. Read it again and reapply your change."""


class PayloadTooLargeError(EngramError):
    """413: the body is larger than the API accepts."""


class UnsupportedMediaTypeError(EngramError):
    """415: the body is not JSON."""


class _RetryAfter(EngramError):
    @property
    def retry_after(self) -> Optional[float]:
        """Seconds to wait before trying again (the ``Retry-After`` header), or None."""
        value = self.response.headers.get("retry-after") if self.response is not None else None
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None


class RateLimitError(_RetryAfter):
    """429: over the rate limit (per credential or per client IP); see :attr:`retry_after`."""


class ServerError(EngramError):
    """5xx: the API failed; the request may be retried if it is idempotent."""


class ServiceUnavailableError(ServerError, _RetryAfter):
    """503: the database is unavailable or kept meeting concurrent work; retry after :attr:`retry_after`."""


_BY_STATUS: Mapping[int, Type[EngramError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    412: PreconditionFailedError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def _field_errors(raw: Any) -> List[FieldError]:
    if not isinstance(raw, list):
        return []
    problems: List[FieldError] = []
    for item in raw:
        if isinstance(item, dict) and isinstance(item.get("field"), str):
            problems.append({"field": item["field"], "message": str(item.get("message", ""))})
    return problems


def error_from_response(response: httpx.Response) -> EngramError:
    """The exception for a 4xx/5xx answer, built from the API's error body.

    A body that is not the API's JSON (a proxy's HTML page, an empty 502) still gives the right
    class, with the start of the text as its message.
    """
    status = response.status_code
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else EngramError)
    body: Optional[Dict[str, Any]] = None
    try:
        decoded = response.json()
        if isinstance(decoded, dict):
            body = decoded
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        pass
    if body is not None and isinstance(body.get("message"), str):
        message = body["message"]
    else:
        text = response.text.strip()
        message = text[:500] if text else response.reason_phrase or "request failed"
    error = body.get("error") if body is not None and isinstance(body.get("error"), str) else response.reason_phrase or None
    request_id = body.get("requestId") if body is not None else None
    return cls(
        message,
        status=status,
        error=error,
        request_id=str(request_id) if request_id is not None else None,
        field_errors=_field_errors(body.get("errors") if body is not None else None),
        body=body,
        response=response,
    )

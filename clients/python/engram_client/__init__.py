"""Engram's Python client: long-term memory for LLM agents.

::

    from engram_client import Engram

    memory = Engram(api_key="emk_...")          # or ENGRAM_API_KEY; base URL from ENGRAM_URL
    memory.add("Prefers answers in German", category="preference", key="answer_language")
    context = memory.recall("How should I answer?", max_tokens=1500).text

:class:`Engram` blocks; :class:`AsyncEngram` has the same calls for asyncio. Failures raise
:class:`EngramError` subclasses (see :mod:`engram_client.errors`); the API's shapes are in
:mod:`engram_client.models`.
"""

from ._core import DEFAULT_BASE_URL, NOT_GIVEN, __version__
from .async_client import AsyncEngram
from .client import Engram
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    EngramConnectionError,
    EngramError,
    EngramTimeoutError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    PreconditionFailedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnsupportedMediaTypeError,
)
from .models import (
    AppendResult,
    EndResult,
    BatchResult,
    Category,
    ConsolidationOutcome,
    ConversationMessage,
    ConversationMessagePage,
    FieldError,
    Memory,
    MemoryInput,
    MemoryPage,
    MemoryVersion,
    Message,
    Mind,
    MindPage,
    NewMindKey,
    Priority,
    Recall,
    SearchHit,
)

__all__ = [
    "__version__",
    "DEFAULT_BASE_URL",
    "NOT_GIVEN",
    "Engram",
    "AsyncEngram",
    "EngramError",
    "EngramConnectionError",
    "EngramTimeoutError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "PreconditionFailedError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "AppendResult",
    "EndResult",
    "BatchResult",
    "Category",
    "ConsolidationOutcome",
    "ConversationMessage",
    "ConversationMessagePage",
    "FieldError",
    "Memory",
    "MemoryInput",
    "MemoryPage",
    "MemoryVersion",
    "Message",
    "Mind",
    "MindPage",
    "NewMindKey",
    "Priority",
    "Recall",
    "SearchHit",
]

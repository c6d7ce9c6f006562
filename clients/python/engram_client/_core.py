"""What the sync and async clients share: configuration, and each call as a :class:`Call` (method,
path, query, body, how to read the answer), so that :class:`~engram_client.Engram` and
:class:`~engram_client.AsyncEngram` differ only in how they send it."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union
from urllib.parse import quote

import httpx

from .errors import EngramConnectionError, EngramTimeoutError, error_from_response
from .models import (
    AppendResult,
    EndResult,
    BatchResult,
    ConsolidationOutcome,
    ConversationMessagePage,
    Memory,
    MemoryPage,
    MemoryVersion,
    Message,
    Mind,
    MindPage,
    NewMindKey,
    Recall,
    SearchHit,
)

__version__ = "0.1.0"

DEFAULT_BASE_URL = "http://localhost:3000"
DEFAULT_TIMEOUT = 30.0
"""Seconds for connecting and for each read; recall and search of a large mind stay well under it."""

T = TypeVar("T")

Params = List[Tuple[str, Union[str, int, float, bool, None]]]
"""Query parameters in order, a name repeated for a list (what httpx accepts)."""

Time = Union[str, datetime]
"""An instant: an ISO 8601 string with a zone, or a timezone-aware ``datetime``."""


class _NotGiven:
    """The default of an argument for which None means something (``expires_at=None``: never)."""

    _instance: Optional["_NotGiven"] = None

    def __new__(cls) -> "_NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN = _NotGiven()


@dataclass(frozen=True)
class Config:
    """Where the API is and which credential and mind a client sends."""

    base_url: str
    api_key: Optional[str]
    mind_id: Optional[str]
    extra_headers: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def resolve(api_key: Optional[str], mind_id: Optional[str], base_url: Optional[str], headers: Optional[Mapping[str, str]]) -> "Config":
        url = (base_url or os.environ.get("ENGRAM_URL") or DEFAULT_BASE_URL).strip().rstrip("/")
        # The API's routes start with /v1; a base URL copied with it would double it.
        if url.endswith("/v1"):
            url = url[: -len("/v1")]
        key = api_key if api_key is not None else os.environ.get("ENGRAM_API_KEY") or None
        if key is not None and (not key.strip() or any(c.isspace() for c in key.strip())):
            raise ValueError("api_key must be one token without spaces: a Mind Key (emk_...), a service key (esk_...) or a JWT")
        if mind_id is not None and not mind_id.strip():
            raise ValueError("mind_id must be a mind's id (a UUID), not empty")
        return Config(url, key.strip() if key else None, mind_id.strip() if mind_id else None, dict(headers or {}))

    def with_mind(self, mind_id: str) -> "Config":
        if not mind_id or not mind_id.strip():
            raise ValueError("mind_id must be a mind's id (a UUID), not empty")
        return replace(self, mind_id=mind_id.strip())

    def headers(self) -> Dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": f"engram-client-python/{__version__}", **self.extra_headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if self.mind_id:
            headers["X-Mind-Id"] = self.mind_id
        return headers


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and how to read its 2xx answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: Optional[Params] = None
    json: Any = None
    headers: Optional[Dict[str, str]] = None


def body_bytes(body: Any) -> bytes:
    """A request's JSON as UTF-8, compact. httpx before 0.28 (``json=``) escaped every non-ASCII
    character as ``\\uXXXX``: Chinese text took twice its bytes and emoji three times, and a batch
    within the API's limits per item outgrew its ``BODY_LIMIT`` (413)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_request(http: Union[httpx.Client, httpx.AsyncClient], config: Config, call: "Call[Any]") -> httpx.Request:
    headers = {**config.headers(), **(call.headers or {})}
    content = None if call.json is None else body_bytes(call.json)
    if content is not None:
        headers["Content-Type"] = "application/json"
    return http.build_request(call.method, config.base_url + call.path, params=call.params, content=content, headers=headers)


def transport_error(exc: httpx.TransportError, config: Config) -> EngramConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return EngramTimeoutError(f"no answer from {config.base_url} in time: {exc!r}")
    return EngramConnectionError(f"could not reach the Engram API at {config.base_url}: {exc}")


def finish(response: httpx.Response, call: "Call[T]") -> T:
    """The parsed answer; raises the :class:`~engram_client.EngramError` subclass for a 4xx/5xx."""
    if response.is_error:
        raise error_from_response(response)
    return call.parse(response)


# ---- reading answers


def _json(response: httpx.Response) -> Any:
    return response.json()


def _items(response: httpx.Response) -> Any:
    return response.json()["items"]


def _consolidated(response: httpx.Response) -> Any:
    return response.json()["consolidated"]


def _none(response: httpx.Response) -> None:
    return None


def _recall(response: httpx.Response) -> Recall:
    def header(name: str) -> int:
        try:
            return int(response.headers.get(name, "0"))
        except ValueError:
            return 0

    return Recall(text=response.text, tokens=header("x-recall-tokens"), entries=header("x-recall-entries"))


# ---- writing requests


def segment(value: str, what: str) -> str:
    """A path segment: the id quoted, so that an id can never reach another route."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string")
    if value in (".", ".."):
        # A dot segment: HTTP clients resolve it away, so the request would reach another route.
        raise ValueError(f"{what} must not be '.' nor '..'")
    return quote(value, safe="")


def time_text(value: Time, what: str) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{what}: give a timezone-aware datetime (e.g. datetime.now(timezone.utc)); the API needs the zone")
        return value.isoformat()
    return value


def duration_text(value: Union[str, timedelta], what: str) -> str:
    if isinstance(value, timedelta):
        minutes = int(value.total_seconds() // 60)
        if minutes < 1:
            raise ValueError(f"{what} must be at least one minute")
        return f"{minutes}m"
    return value


def query(**values: Any) -> Params:
    """Query parameters: None left out, booleans as ``true``/``false``, lists repeated (``tag=a&tag=b``)."""
    params: Params = []
    for name, value in values.items():
        if value is None:
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, bool):
                params.append((name, "true" if item else "false"))
            elif isinstance(item, datetime):
                params.append((name, time_text(item, name)))
            else:
                params.append((name, str(item)))
    return params


def derived_key(content: str) -> str:
    """The key of a memory added without one: ``m_`` and 24 hex digits of the SHA-256 of its
    trimmed text, so that adding the same text again finds the same memory (and a retried add
    does not duplicate it)."""
    return "m_" + hashlib.sha256(content.strip().encode("utf-8")).hexdigest()[:24]


def memory_fields(
    *,
    content: Optional[str] = None,
    tags: Optional[Sequence[str]] = None,
    priority: Optional[str] = None,
    importance: Optional[float] = None,
    confidence: Optional[float] = None,
    expires_at: Union[Time, None, _NotGiven] = NOT_GIVEN,
    occurred_at: Optional[Time] = None,
    memory_type: Optional[str] = None,
    source_refs: Optional[Sequence[str]] = None,
    temporal_context: Optional[str] = None,
    temporal_position: Optional[int] = None,
    payload: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """A memory's writable fields as the API's JSON; None (and NOT_GIVEN) left out, except
    ``expires_at=None``, which is sent as null: never expires."""
    body: Dict[str, Any] = {}
    simple = {
        "content": content,
        "priority": priority,
        "importance": importance,
        "confidence": confidence,
        "memory_type": memory_type,
        "temporal_context": temporal_context,
        "temporal_position": temporal_position,
    }
    body.update({name: value for name, value in simple.items() if value is not None})
    if tags is not None:
        body["tags"] = list(tags)
    if source_refs is not None:
        body["source_refs"] = list(source_refs)
    if payload is not None:
        body["payload"] = dict(payload)
    if occurred_at is not None:
        body["occurred_at"] = time_text(occurred_at, "occurred_at")
    if not isinstance(expires_at, _NotGiven):
        body["expires_at"] = None if expires_at is None else time_text(expires_at, "expires_at")
    return body


def messages_body(messages: Sequence[Union[Message, str]]) -> Dict[str, Any]:
    if isinstance(messages, (str, dict)):
        raise TypeError("messages must be a list of messages (dicts with content, or strings)")
    out: List[Dict[str, Any]] = []
    for message in messages:
        if isinstance(message, str):
            out.append({"role": "user", "content": message})
        else:
            item = dict(message)
            occurred_at = item.get("occurred_at")
            if isinstance(occurred_at, datetime):
                item["occurred_at"] = time_text(occurred_at, "occurred_at")
            out.append(item)
    return {"messages": out}


# ---- the calls


def add(content: str, category: str, key: Optional[str], fields: Dict[str, Any]) -> "Call[Memory]":
    body = {"category": category, "key": key if key is not None else derived_key(content), "content": content, **fields}
    return Call("POST", "/v1/memory", _json, json=body)


def batch(items: Sequence[Mapping[str, Any]]) -> "Call[BatchResult]":
    return Call("POST", "/v1/memory/batch", _json, json={"items": [dict(item) for item in items]})


def search(q: str, params: Dict[str, Any]) -> "Call[List[SearchHit]]":
    return Call("GET", "/v1/memory/search", _items, params=query(q=q, **params))


def recall(q: Optional[str], max_tokens: Optional[int], limit: Optional[int]) -> "Call[Recall]":
    return Call("GET", "/v1/memory/recall", _recall, params=query(q=q, max_tokens=max_tokens, limit=limit))


def get(memory_id: str) -> "Call[Memory]":
    return Call("GET", f"/v1/memory/{segment(memory_id, 'memory_id')}", _json)


def history(memory_id: str) -> "Call[List[MemoryVersion]]":
    return Call("GET", f"/v1/memory/{segment(memory_id, 'memory_id')}/history", _items)


def if_match(version: Optional[int]) -> Optional[Dict[str, str]]:
    """The ``If-Match`` header naming a memory's version (its ETag, ``"3"``), or None."""
    if version is None:
        return None
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"if_match must be a memory's version, a whole number from 1, not {version!r}")
    return {"If-Match": f'"{version}"'}


def update(memory_id: str, fields: Dict[str, Any], version: Optional[int] = None) -> "Call[Memory]":
    if not fields:
        raise ValueError("update needs at least one field to change")
    return Call("PUT", f"/v1/memory/{segment(memory_id, 'memory_id')}", _json, json=fields, headers=if_match(version))


def delete(memory_id: str, version: Optional[int] = None) -> "Call[None]":
    return Call("DELETE", f"/v1/memory/{segment(memory_id, 'memory_id')}", _none, headers=if_match(version))


def verify(memory_id: str) -> "Call[Memory]":
    return Call("POST", f"/v1/memory/{segment(memory_id, 'memory_id')}/verify", _json)


def list_memories(params: Dict[str, Any]) -> "Call[MemoryPage]":
    return Call("GET", "/v1/memory", _json, params=query(**params))


def expiring(within: Union[str, timedelta], limit: Optional[int]) -> "Call[List[Memory]]":
    return Call("GET", "/v1/memory/expiring", _items, params=query(within=duration_text(within, "within"), limit=limit))


def add_messages(conversation_id: str, messages: Sequence[Union[Message, str]]) -> "Call[AppendResult]":
    path = f"/v1/conversations/{segment(conversation_id, 'conversation_id')}/messages"
    return Call("POST", path, _json, json=messages_body(messages))


def list_messages(conversation_id: str, limit: Optional[int], cursor: Optional[str]) -> "Call[ConversationMessagePage]":
    path = f"/v1/conversations/{segment(conversation_id, 'conversation_id')}/messages"
    return Call("GET", path, _json, params=query(limit=limit, cursor=cursor))


def consolidate(conversation_id: str) -> "Call[List[ConsolidationOutcome]]":
    path = f"/v1/conversations/{segment(conversation_id, 'conversation_id')}/consolidate"
    return Call("POST", path, _consolidated)


def end_conversation(conversation_id: str) -> "Call[EndResult]":
    path = f"/v1/conversations/{segment(conversation_id, 'conversation_id')}/end"
    return Call("POST", path, _json)


def create_mind(name: str, description: Optional[str], external_id: Optional[str]) -> "Call[Mind]":
    body: Dict[str, Any] = {"name": name}
    if description is not None:
        body["description"] = description
    if external_id is not None:
        body["external_id"] = external_id
    return Call("POST", "/v1/minds", _json, json=body)


def ensure_mind(external_id: str, name: Optional[str], description: Optional[str]) -> "Call[Mind]":
    body: Dict[str, Any] = {}
    if name is not None:
        body["name"] = name
    if description is not None:
        body["description"] = description
    return Call("PUT", f"/v1/minds/by-external-id/{segment(external_id, 'external_id')}", _json, json=body)


def list_minds(name: Optional[str], external_id: Optional[str], limit: Optional[int], cursor: Optional[str]) -> "Call[MindPage]":
    return Call("GET", "/v1/minds", _json, params=query(name=name, external_id=external_id, limit=limit, cursor=cursor))


def get_mind(mind_id: str) -> "Call[Mind]":
    return Call("GET", f"/v1/minds/{segment(mind_id, 'mind_id')}", _json)


def delete_mind(mind_id: str) -> "Call[None]":
    return Call("DELETE", f"/v1/minds/{segment(mind_id, 'mind_id')}", _none)


def create_mind_key(mind_id: str, name: Optional[str]) -> "Call[NewMindKey]":
    return Call("POST", f"/v1/minds/{segment(mind_id, 'mind_id')}/keys", _json, json={} if name is None else {"name": name})

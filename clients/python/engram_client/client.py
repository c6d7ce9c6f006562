"""The synchronous client, :class:`Engram`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Iterator, List, Mapping, Optional, Sequence, TypeVar, Union

import httpx

from . import _core
from ._core import NOT_GIVEN, Call, Config, Time, _NotGiven
from .models import (
    AppendResult,
    EndResult,
    BatchResult,
    Category,
    ConsolidationOutcome,
    ConversationMessage,
    ConversationMessagePage,
    Layer,
    Memory,
    MemoryInput,
    MemoryPage,
    MemoryType,
    MemoryVersion,
    Message,
    Mind,
    MindPage,
    NewMindKey,
    Priority,
    Recall,
    SearchHit,
    SearchMode,
    Tier,
)

T = TypeVar("T")
_Self = TypeVar("_Self", bound="Engram")


class Engram:
    """A client of the Engram memory API (blocking, on ``httpx.Client``).

    Args:
        api_key: the credential, sent as ``Authorization: Bearer <api_key>``: an agent's Mind Key
            (``emk_...``; acts on its own mind), a person's JWT (needs ``mind_id`` for memory
            calls), or a tenant service key (``esk_...``; needs ``mind_id``). Default: the
            ``ENGRAM_API_KEY`` environment variable; without either, only public routes work.
        mind_id: the mind to act on, sent as ``X-Mind-Id``. A Mind Key may leave it out (or
            name its own mind; another mind is a :class:`~engram_client.PermissionDeniedError`).
            See also :meth:`for_mind`.
        base_url: where the API runs, without ``/v1``. Default: ``ENGRAM_URL``, else
            ``http://localhost:3000``.
        timeout: seconds for connecting and for each read (default 30).
        headers: more headers for every request.
        http_client: an ``httpx.Client`` of your own (proxies, retries via its transport, tests);
            the client does not close it.

    Every call raises an :class:`~engram_client.EngramError` subclass on failure: a 4xx or 5xx
    answer carries the API's message, ``request_id`` and ``field_errors``. Use it as a context
    manager, or call :meth:`close`, to release the connections.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        mind_id: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = _core.DEFAULT_TIMEOUT,
        headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        self._config = Config.resolve(api_key, mind_id, base_url, headers)
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)
        self._owns_http = http_client is None

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def mind_id(self) -> Optional[str]:
        return self._config.mind_id

    def for_mind(self: _Self, mind_id: str) -> _Self:
        """The same client acting on another mind (``X-Mind-Id``), sharing this one's connections:
        with a service key or a JWT, one client per end user's mind costs nothing. Closing the
        original closes the connections of both."""
        clone = object.__new__(type(self))
        clone._config = self._config.with_mind(mind_id)
        clone._http = self._http
        clone._owns_http = False
        return clone

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, call: Call[T]) -> T:
        request = _core.build_request(self._http, self._config, call)
        try:
            response = self._http.send(request)
        except httpx.TransportError as exc:
            raise _core.transport_error(exc, self._config) from exc
        return _core.finish(response, call)

    # ---- memories

    def add(
        self,
        content: str,
        *,
        category: Category = "note",
        key: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        priority: Optional[Priority] = None,
        importance: Optional[float] = None,
        confidence: Optional[float] = None,
        expires_at: Union[Time, None, _NotGiven] = NOT_GIVEN,
        occurred_at: Optional[Time] = None,
        memory_type: Optional[MemoryType] = None,
        source_refs: Optional[Sequence[str]] = None,
        temporal_context: Optional[str] = None,
        temporal_position: Optional[int] = None,
        payload: Optional[Mapping[str, Any]] = None,
    ) -> Memory:
        """Stores a memory (``POST /v1/memory``) and returns it.

        With ``key`` (snake_case, at most 128 characters: ``user_name``, ``synapse_status``) it is an
        upsert: a memory with the same category and key gets the new content (the old version stays
        in :meth:`history`), never a duplicate. Without ``key``, the key is derived from the text
        (``m_`` + 24 hex digits of its SHA-256), so the same text added twice is stored once.

        Args:
            content: the text, at most 32 KiB of UTF-8, not blank.
            category: identity, preference, fact, project, skill, mistake, context or note (default).
            tags: at most 20 (no commas); priority: low, normal (default), high or critical.
            importance: 0..1, the caller's judgement; without it the server's scorer decides.
            confidence: 0..1. expires_at: when it stops being true (hidden from lists, search
                and recall from then); None: never. occurred_at: when it happened (default now).
            source_refs, temporal_context, temporal_position, payload: provenance, the session it
                belongs to and its position there, and a JSON object of your own (at most 64 KiB).

        A Mind Key's writes are ``source="agent"``, unverified; a person's are ``source="user"``.

        Raises:
            BadRequestError: a field breaks its rule (``err.field_errors`` names it).
        """
        fields = _core.memory_fields(
            tags=tags,
            priority=priority,
            importance=importance,
            confidence=confidence,
            expires_at=expires_at,
            occurred_at=occurred_at,
            memory_type=memory_type,
            source_refs=source_refs,
            temporal_context=temporal_context,
            temporal_position=temporal_position,
            payload=payload,
        )
        return self._send(_core.add(content, category, key, fields))

    def batch(self, items: Sequence[MemoryInput]) -> BatchResult:
        """Upserts 1 to 500 memories in one transaction (``POST /v1/memory/batch``): all or none.
        Each item is the body of :meth:`add` with its ``category`` and ``key``. Returns counts and
        each item's ``{id, category, key, version, status}`` (created, updated or unchanged)."""
        return self._send(_core.batch(items))

    def search(
        self,
        query: str,
        *,
        limit: Optional[int] = None,
        mode: Optional[SearchMode] = None,
        category: Optional[Category] = None,
        tags: Optional[Sequence[str]] = None,
        priority: Optional[Priority] = None,
        memory_type: Optional[MemoryType] = None,
        layer: Optional[Layer] = None,
        tier: Optional[Tier] = None,
        since: Optional[Time] = None,
        until: Optional[Time] = None,
        verified: Optional[bool] = None,
        explain: Optional[bool] = None,
    ) -> List[SearchHit]:
        """Hybrid search (``GET /v1/memory/search``): full text and meaning fused, best first.

        Args:
            query: 1 to 1000 characters.
            limit: 1..100 hits (default 10).
            mode: ``any`` (default: any word, ranked), ``all`` (web-search syntax, every hit
                matches) or ``vector`` (by meaning only).
            tags: every tag must match. since / until: ``occurred_at`` at or after / before.
            explain: add each hit's ``explain`` (how its ``score`` came about).

        Each hit is a :class:`~engram_client.models.Memory` with ``score`` (higher is better).
        A hit counts as an access of the memory (it strengthens it).
        """
        params = {
            "limit": limit,
            "mode": mode,
            "category": category,
            "tag": list(tags) if tags is not None else None,
            "priority": priority,
            "memory_type": memory_type,
            "layer": layer,
            "tier": tier,
            "from": since,
            "to": until,
            "verified": verified,
            "explain": explain,
        }
        return self._send(_core.search(query, params))

    def recall(self, query: Optional[str] = None, *, max_tokens: Optional[int] = None, limit: Optional[int] = None) -> Recall:
        """The mind's memories as plain text to put into an LLM's context (``GET /v1/memory/recall``).

        Critical memories first, then the newest, or with ``query`` (a question, at most 1000
        characters) the most relevant to it; expired and forgotten ones left out, unverified ones
        marked. ``max_tokens`` (20..200000, o200k_base tokens) packs as many as fit in that budget,
        at most ``limit`` (1..1000, default 200 with a budget, else 100) memories. Returns a
        :class:`~engram_client.Recall`: ``.text``, ``.tokens``, ``.entries``.
        """
        return self._send(_core.recall(query, max_tokens, limit))

    def get(self, memory_id: str) -> Memory:
        """One memory by id (``GET /v1/memory/:id``); an access. Raises NotFoundError for an id
        that does not exist or belongs to another mind or tenant."""
        return self._send(_core.get(memory_id))

    def history(self, memory_id: str) -> List[MemoryVersion]:
        """Every version of a memory, newest first (``GET /v1/memory/:id/history``): what changed
        (create, update, verify), who did it (``actor_type``), and the content at that version."""
        return self._send(_core.history(memory_id))

    def update(
        self,
        memory_id: str,
        *,
        content: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        priority: Optional[Priority] = None,
        importance: Optional[float] = None,
        confidence: Optional[float] = None,
        expires_at: Union[Time, None, _NotGiven] = NOT_GIVEN,
        occurred_at: Optional[Time] = None,
        memory_type: Optional[MemoryType] = None,
        source_refs: Optional[Sequence[str]] = None,
        temporal_context: Optional[str] = None,
        temporal_position: Optional[int] = None,
        payload: Optional[Mapping[str, Any]] = None,
        if_match: Optional[int] = None,
    ) -> Memory:
        """Changes the given fields of a memory (``PUT /v1/memory/:id``); its category and key stay.
        A new version is recorded. Arguments left out (None) are not changed, except
        ``expires_at=None``, which removes the expiry. Raises ValueError when nothing is given.
        ``if_match``: the ``version`` you read; PreconditionFailedError (412, nothing written) when
        the memory has changed since, so two agents cannot overwrite each other unseen."""
        fields = _core.memory_fields(
            content=content,
            tags=tags,
            priority=priority,
            importance=importance,
            confidence=confidence,
            expires_at=expires_at,
            occurred_at=occurred_at,
            memory_type=memory_type,
            source_refs=source_refs,
            temporal_context=temporal_context,
            temporal_position=temporal_position,
            payload=payload,
        )
        return self._send(_core.update(memory_id, fields, if_match))

    def delete(self, memory_id: str, *, if_match: Optional[int] = None) -> None:
        """Deletes a memory and its history (``DELETE /v1/memory/:id``). NotFoundError when gone;
        with ``if_match`` (the version you read), PreconditionFailedError when it changed since."""
        self._send(_core.delete(memory_id, if_match))

    def verify(self, memory_id: str) -> Memory:
        """Marks a memory verified by a person (``POST /v1/memory/:id/verify``). Needs a person's
        JWT: a Mind Key gets PermissionDeniedError."""
        return self._send(_core.verify(memory_id))

    def list_memories(
        self,
        *,
        category: Optional[Category] = None,
        tags: Optional[Sequence[str]] = None,
        priority: Optional[Priority] = None,
        layer: Optional[Layer] = None,
        tier: Optional[Tier] = None,
        include_expired: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> MemoryPage:
        """One page of the mind's memories, newest first (``GET /v1/memory``): ``{items, next_cursor}``.
        Pass ``next_cursor`` back as ``cursor`` for the next page; it is None on the last.
        ``limit``: 1..200 (default 50); ``tags``: every one must match. Not an access.
        :meth:`iter_memories` follows the cursors for you."""
        params = {
            "category": category,
            "tag": list(tags) if tags is not None else None,
            "priority": priority,
            "layer": layer,
            "tier": tier,
            "include_expired": include_expired,
            "limit": limit,
            "cursor": cursor,
        }
        return self._send(_core.list_memories(params))

    def iter_memories(
        self,
        *,
        category: Optional[Category] = None,
        tags: Optional[Sequence[str]] = None,
        priority: Optional[Priority] = None,
        layer: Optional[Layer] = None,
        tier: Optional[Tier] = None,
        include_expired: Optional[bool] = None,
        page_size: int = 100,
    ) -> Iterator[Memory]:
        """Every memory matching the filters, newest first, fetched ``page_size`` (1..200) at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.list_memories(
                category=category, tags=tags, priority=priority, layer=layer, tier=tier, include_expired=include_expired, limit=page_size, cursor=cursor
            )
            yield from page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def expiring(self, *, within: Union[str, timedelta] = "7d", limit: Optional[int] = None) -> List[Memory]:
        """Memories whose ``expires_at`` falls within ``within`` from now, soonest first
        (``GET /v1/memory/expiring``). ``within``: a whole number and a unit m, h, d or w
        (``"48h"``, ``"2w"``), or a ``timedelta`` (whole minutes); ``limit``: 1..500 (default 100)."""
        return self._send(_core.expiring(within, limit))

    # ---- conversations

    def add_messages(self, conversation_id: str, messages: Sequence[Union[Message, str]]) -> AppendResult:
        """Posts 1 to 500 messages of a conversation (``POST /v1/conversations/:id/messages``).

        The server stores each, scores it (your ``importance``, 0..1, else its scorer), and lets the
        ones that pass attention into the conversation's short-term memory; entries that are
        important, repeated or pushed out move to long-term memory (``consolidated``), a repeat of a
        known memory reinforces it (``reinforced``). This is how facts from a chat become memories
        without naming keys. ``conversation_id``: 1 to 200 characters of ``A-Z a-z 0-9 . _ : -``.
        A message is a dict (``{"role": "user", "content": ..., "speaker": ..., "importance": ...}``)
        or a string (a user's message).
        """
        return self._send(_core.add_messages(conversation_id, messages))

    def list_messages(self, conversation_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> ConversationMessagePage:
        """One page of a conversation's messages as received, oldest first
        (``GET /v1/conversations/:id/messages``): ``{conversation_id, items, next_cursor}``, with each
        message's metadata; ``limit``: 1..200 (default 50). :meth:`iter_messages` follows the cursors."""
        return self._send(_core.list_messages(conversation_id, limit, cursor))

    def iter_messages(self, conversation_id: str, *, page_size: int = 100) -> Iterator[ConversationMessage]:
        """Every message of a conversation, oldest first, fetched ``page_size`` (1..200) at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.list_messages(conversation_id, limit=page_size, cursor=cursor)
            yield from page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def consolidate(self, conversation_id: str) -> List[ConsolidationOutcome]:
        """The explicit save (``POST /v1/conversations/:id/consolidate``): every short-term entry of
        the conversation moves to long-term memory now, whatever its score."""
        return self._send(_core.consolidate(conversation_id))

    def end_conversation(self, conversation_id: str) -> EndResult:
        """The conversation has ended (``POST /v1/conversations/:id/end``): each short-term entry is
        decided now as the server would decide it after 30 quiet minutes: it moves to long-term
        memory when it was important, emotional, repeated or scores above the threshold, and is
        let go otherwise. Call it when a chat session closes; without it the sleep cycle decides
        within minutes of the timeout. Nothing left: ``consolidated`` is empty."""
        return self._send(_core.end_conversation(conversation_id))

    # ---- minds (a person's JWT, or a service key with the scope to manage minds)

    def ensure_mind(self, external_id: str, *, name: Optional[str] = None, description: Optional[str] = None) -> Mind:
        """The mind of one end user of your service, by your own user id, created when there is none
        (``PUT /v1/minds/by-external-id/:externalId``; mem0's ``user_id``). Idempotent: the same
        ``external_id`` always gives the same mind, also under concurrent calls. ``name`` (default:
        the external id) and ``description`` are used only when it is created.

        ``external_id``: 1..200 characters, kept as given (no leading or trailing white space, no
        control characters). Needs a service key with ``minds:manage`` or an owner's or admin's
        JWT; ConflictError when another mind already has the name. See :meth:`for_user`.
        """
        return self._send(_core.ensure_mind(external_id, name, description))

    def for_user(self: _Self, external_id: str, *, name: Optional[str] = None, description: Optional[str] = None) -> _Self:
        """:meth:`ensure_mind` then :meth:`for_mind`: this client acting on the end user's mind,
        sharing the connections. ``memory.for_user("user-123").add("Prefers tea")``."""
        return self.for_mind(self.ensure_mind(external_id, name=name, description=description)["id"])

    def create_mind(self, name: str, *, description: Optional[str] = None, external_id: Optional[str] = None) -> Mind:
        """Creates a mind (``POST /v1/minds``). ConflictError when the tenant has one of that name
        (or external id); PermissionDeniedError for a Mind Key or a member without the owner or
        admin role. For one mind per end user, :meth:`ensure_mind` is idempotent."""
        return self._send(_core.create_mind(name, description, external_id))

    def list_minds(
        self, *, name: Optional[str] = None, external_id: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> MindPage:
        """One page of the tenant's minds, newest first (``GET /v1/minds``): ``{items, next_cursor}``;
        ``name`` or ``external_id`` finds one; ``limit`` 1..200 (default 50)."""
        return self._send(_core.list_minds(name, external_id, limit, cursor))

    def iter_minds(self, *, page_size: int = 100) -> Iterator[Mind]:
        """Every mind of the tenant, newest first, following the cursors."""
        cursor: Optional[str] = None
        while True:
            page = self.list_minds(limit=page_size, cursor=cursor)
            yield from page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def get_mind(self, mind_id: str) -> Mind:
        return self._send(_core.get_mind(mind_id))

    def delete_mind(self, mind_id: str) -> None:
        """Deletes a mind and everything it holds (memories, history, messages, keys)."""
        self._send(_core.delete_mind(mind_id))

    def create_mind_key(self, mind_id: str, *, name: Optional[str] = None) -> NewMindKey:
        """Issues a Mind Key for an agent of the mind; ``key`` (``emk_...``) is shown this once."""
        return self._send(_core.create_mind_key(mind_id, name))


__all__ = ["Engram"]

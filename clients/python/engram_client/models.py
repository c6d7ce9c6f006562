"""The shapes of the Engram API's requests and answers, as ``TypedDict``\\ s and ``Literal``\\ s.

Answers are the API's JSON as plain ``dict``\\ s (what ``json.loads`` gives), typed here so that a
type checker and an editor know their keys; nothing is converted or validated on the way in, so a
field the API adds later is simply there. Times are ISO 8601 strings with a zone
(``"2026-06-28T00:00:00.000Z"``); scores and retentions are floats from 0 to 1 unless said
otherwise. The definitions follow ``apps/api/src/**/*.dto.ts`` and ``clients/typescript/openapi.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, TypedDict

__all__ = [
    "Category",
    "Priority",
    "MemoryType",
    "Layer",
    "Tier",
    "Source",
    "SearchMode",
    "Role",
    "Memory",
    "MemoryPage",
    "SearchHit",
    "SearchExplanation",
    "MemoryVersion",
    "MemoryInput",
    "BatchResult",
    "BatchItem",
    "Message",
    "AppendResult",
    "ConsolidationOutcome",
    "ReinforcedOutcome",
    "ExtractedFact",
    "Mind",
    "MindPage",
    "MindKey",
    "NewMindKey",
    "FieldError",
    "ErrorBody",
    "Recall",
]

Category = Literal["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"]
"""What a memory is about; recall groups by it."""

Priority = Literal["low", "normal", "high", "critical"]
"""Lowest to highest; recall lists critical memories first, whatever the question."""

MemoryType = Literal["stm", "episodic", "semantic", "procedural", "working"]
Layer = Literal["working", "short_term", "long_term"]
Tier = Literal["hot", "warm", "cold", "archive"]
Source = Literal["user", "agent"]
"""Who wrote a memory: ``user`` for a person's JWT, ``agent`` for a Mind Key."""

SearchMode = Literal["any", "all", "vector"]
"""``any``: any word, ranked, fused with meaning; ``all``: web-search syntax, every hit matches; ``vector``: by meaning only."""

Role = Literal["user", "assistant", "system", "tool"]


class Memory(TypedDict):
    """One memory as the API answers it (``MemoryView``)."""

    id: str
    mind_id: str
    category: Category
    key: str
    content: str
    tags: List[str]
    priority: Priority
    source: Source
    verified: bool
    confidence: float
    expires_at: Optional[str]
    occurred_at: str
    created_at: str
    updated_at: str
    version: int
    memory_type: MemoryType
    layer: Layer
    importance_score: Optional[float]
    initial_retention: Optional[float]
    current_retention: Optional[float]
    strength_days: Optional[float]
    last_reviewed: Optional[str]
    review_schedule: List[str]
    next_review: Optional[str]
    review_count: int
    access_count: int
    last_accessed: Optional[str]
    consolidation_score: Optional[float]
    forgotten_at: Optional[str]
    storage_location: Literal["hippocampus", "neocortex"]
    tier: Tier
    compacted: bool
    payload: Dict[str, Any]
    association_graph: Dict[str, Any]
    semantic_tags: List[str]
    temporal_position: Optional[int]
    temporal_context: Optional[str]
    source_refs: List[str]
    content_hash: str
    embedding_model: Optional[str]
    embedding_status: Literal["pending", "ready", "failed", "archived"]
    embedded_at: Optional[str]
    retention_at: Optional[str]
    importance_source: Optional[str]
    emotional_weight: Optional[float]
    hippocampus_dependency: float
    synaptic_consolidated: bool


class MemoryPage(TypedDict):
    """One page of a list, newest first; ``next_cursor`` is None on the last page."""

    items: List[Memory]
    next_cursor: Optional[str]


class _ExplainText(TypedDict):
    bm25: float
    smoothed: float
    rank: Optional[int]


class _ExplainVector(TypedDict):
    distance: Optional[float]
    similarity: float
    smoothed: float
    rank: Optional[int]


class SearchExplanation(TypedDict):
    """With ``explain=True``: how a hit's score came about (full text, vectors, weights)."""

    text: _ExplainText
    vector: _ExplainVector
    tag_boost: float
    rrf: float
    retention_factor: float
    importance_factor: float
    priority_factor: float
    forgotten_factor: float
    score: float


class _SearchHitRequired(Memory):
    score: float


class SearchHit(_SearchHitRequired, total=False):
    """A memory found by search. ``score`` is the fused, weighted relevance: higher is better,
    comparable within one answer only (not a probability). ``explain`` only with ``explain=True``."""

    explain: SearchExplanation


class MemoryVersion(TypedDict):
    """One entry of a memory's history (``history()``), newest first."""

    version: int
    change: Literal["create", "update", "verify"]
    category: Category
    key: str
    content: str
    tags: List[str]
    priority: Priority
    source: Source
    verified: bool
    confidence: float
    expires_at: Optional[str]
    #: When what it said happened; this and the five below are None in a version recorded before 2026-12-11.
    occurred_at: Optional[str]
    memory_type: Optional[MemoryType]
    payload: Optional[Dict[str, Any]]
    source_refs: Optional[List[str]]
    temporal_context: Optional[str]
    temporal_position: Optional[int]
    #: The importance (0..1) this version set; None in a version recorded before 2026-12-17.
    importance_score: Optional[float]
    actor_type: Literal["user", "mind_key", "service_key", "system"]
    actor_id: Optional[str]
    created_at: str


class _MemoryInputRequired(TypedDict):
    category: Category
    key: str
    content: str


class MemoryInput(_MemoryInputRequired, total=False):
    """One memory of ``batch()``: the body of ``POST /v1/memory``. ``importance`` and
    ``confidence`` are 0..1; ``expires_at`` None means never."""

    tags: List[str]
    priority: Priority
    importance: float
    confidence: float
    expires_at: Optional[str]
    occurred_at: str
    memory_type: MemoryType
    source_refs: List[str]
    temporal_context: str
    temporal_position: int
    payload: Dict[str, Any]


class BatchItem(TypedDict):
    id: str
    category: Category
    key: str
    version: int
    status: Literal["created", "updated", "unchanged"]


class BatchResult(TypedDict):
    """What ``batch()`` did: counts and one item per input, in order."""

    created: int
    updated: int
    unchanged: int
    items: List[BatchItem]


class _MessageRequired(TypedDict):
    content: str


class Message(_MessageRequired, total=False):
    """A message posted to a conversation. ``role`` defaults to ``user``; ``speaker`` names who
    spoke when there are several people; ``importance`` (0..1) overrides the scorer's;
    ``occurred_at`` (ISO 8601) defaults to now; ``client_id`` (your id of the message) makes a
    re-send of it a no-op, so a whole history may be posted with every call."""

    client_id: str
    role: Role
    speaker: str
    occurred_at: str
    metadata: Dict[str, Any]
    importance: float


class ConversationMessage(TypedDict):
    """A message of a conversation as it was received (``list_messages()``): its ``id`` is what a
    memory's ``source_refs`` names; ``importance`` is the score it got (None until processed)."""

    id: str
    client_id: Optional[str]
    role: Role
    speaker: Optional[str]
    content: str
    metadata: Dict[str, Any]
    occurred_at: str
    received_at: str
    importance: Optional[float]
    importance_source: Optional[str]


class ConversationMessagePage(TypedDict):
    conversation_id: str
    items: List[ConversationMessage]
    next_cursor: Optional[str]


class ExtractedFact(TypedDict):
    memory_id: str
    category: str
    key: str
    status: Literal["created", "updated", "unchanged"]


class _ConsolidationOutcomeRequired(TypedDict):
    stm_entry_id: str
    memory_id: str
    key: str
    trigger: str
    status: Literal["created", "reinforced"]
    score: float
    messages: int


class ConsolidationOutcome(_ConsolidationOutcomeRequired, total=False):
    """A short-term entry moved to long-term memory: a new episodic memory, or a near-duplicate
    reinforced. ``facts``: the keyed facts an LLM extracted (only when the server has one)."""

    facts: List[ExtractedFact]


class ReinforcedOutcome(TypedDict):
    """A message that repeated a long-term memory and reinforced it at once."""

    message_id: str
    memory_id: str
    key: str


class AppendResult(TypedDict):
    """What ``add_messages()`` did: messages stored, how many passed attention into short-term
    memory (STM), and the memories written (``consolidated``) or reinforced."""

    conversation_id: str
    message_ids: List[str]
    attended: int
    rehearsed: int
    reinforced: List[ReinforcedOutcome]
    below_attention: int
    discarded: int
    consolidated: List[ConsolidationOutcome]
    stm_size: int
    stm_capacity: int


class EndResult(TypedDict):
    """What ``end_conversation()`` did: the short-term entries that moved to long-term memory
    (``consolidated``) and how many were let go (``discarded``)."""

    conversation_id: str
    consolidated: List[ConsolidationOutcome]
    discarded: int


class Mind(TypedDict):
    """A mind: one memory space (one per agent, or per end user of a SaaS: ``external_id``)."""

    id: str
    name: str
    description: Optional[str]
    external_id: Optional[str]
    """Your own id of the end user this mind remembers (``ensure_mind``), or None."""
    created_at: str
    updated_at: str


class MindPage(TypedDict):
    items: List[Mind]
    next_cursor: Optional[str]


class MindKey(TypedDict):
    id: str
    mind_id: str
    name: str
    key_prefix: str
    created_at: str
    last_used_at: Optional[str]
    revoked_at: Optional[str]


class NewMindKey(MindKey):
    """A new Mind Key: ``key`` (``emk_...``) is shown this once; the API keeps only a hash."""

    key: str


class FieldError(TypedDict):
    """One problem with one input: ``field`` is a path like ``importance``, ``items[3].key``,
    ``messages[0].content`` or a header name (``X-Mind-Id``)."""

    field: str
    message: str


class _ErrorBodyRequired(TypedDict):
    statusCode: int
    error: str
    message: str


class ErrorBody(_ErrorBodyRequired, total=False):
    """The JSON body of every error answer of the API (``AllExceptionsFilter``)."""

    requestId: str
    errors: List[FieldError]


@dataclass(frozen=True)
class Recall:
    """The mind's memories as plain text for an LLM's context (``recall()``).

    ``text`` goes into the prompt as it is; ``tokens`` is its size in o200k_base tokens (the
    encoding of GPT-4o and later) and ``entries`` how many memories it holds. ``str(recall)`` is
    the text.
    """

    text: str
    tokens: int
    entries: int

    def __str__(self) -> str:
        return self.text

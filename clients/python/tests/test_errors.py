"""Failures become exceptions carrying what the API said: status, message, request id, field errors."""

from __future__ import annotations

import socket
import uuid
from typing import Callable, List

import httpx
import pytest

from _support import need
from engram_client import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    Engram,
    EngramConnectionError,
    EngramError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
)


def test_a_bad_importance_is_a_400_naming_the_field(agent: Engram, key: Callable[[str], str]) -> None:
    with pytest.raises(BadRequestError) as raised:
        agent.add("Likes tea", category="preference", key=key("tea"), importance=1.5)
    err = raised.value
    assert isinstance(err, EngramError)
    assert err.status == 400 and err.error == "Bad Request"
    assert err.field_errors == [{"field": "importance", "message": "must be from 0 to 1"}]
    assert err.fields == ["importance"]
    assert "importance" in err.message
    assert err.request_id, "the API's request id is kept, to quote when reporting"
    assert str(err).startswith("400 Bad Request: importance: must be from 0 to 1")


def test_every_bad_field_is_listed(agent: Engram) -> None:
    with pytest.raises(BadRequestError) as raised:
        agent.add("x", category="gossip", key="Not Snake Case", confidence=-1)  # type: ignore[arg-type]
    assert sorted(raised.value.fields) == ["category", "confidence", "key"]
    assert "snake_case" in next(p["message"] for p in raised.value.field_errors if p["field"] == "key")


def test_bad_messages_name_their_index(agent: Engram) -> None:
    with pytest.raises(BadRequestError) as raised:
        agent.add_messages("chat-1", [{"content": "fine"}, {"content": "   "}])
    assert raised.value.fields == ["messages[1].content"]
    with pytest.raises(BadRequestError) as raised:
        agent.add_messages("no spaces allowed", ["hello"])
    assert raised.value.fields == ["conversationId"]


def test_a_bad_search_parameter_is_a_400(agent: Engram) -> None:
    with pytest.raises(BadRequestError) as raised:
        agent.search("anything", limit=1000)
    assert raised.value.fields == ["limit"]
    with pytest.raises(BadRequestError) as raised:
        agent.recall(max_tokens=5)
    assert raised.value.fields == ["max_tokens"]


def test_credentials_the_api_refuses_are_401(api_url: str) -> None:
    with Engram(base_url=api_url) as anonymous:
        with pytest.raises(AuthenticationError) as raised:
            anonymous.recall()
        assert raised.value.status == 401 and "credentials" in raised.value.message
    with Engram("emk_" + "0" * 40, base_url=api_url) as unknown:
        with pytest.raises(AuthenticationError):
            unknown.search("x")
    with Engram("not.a.jwt", mind_id=str(uuid.uuid4()), base_url=api_url) as garbage:
        with pytest.raises(AuthenticationError):
            garbage.get(str(uuid.uuid4()))


def test_what_a_credential_may_not_do_is_403(agent: Engram, api_url: str, mind_key: str) -> None:
    with pytest.raises(PermissionDeniedError) as raised:
        agent.create_mind("an agent may not create minds")
    assert raised.value.status == 403
    # A Mind Key acts on its own mind only.
    with Engram(mind_key, mind_id=need("ENGRAM_TEST_OTHER_MIND_ID"), base_url=api_url) as elsewhere:
        with pytest.raises(PermissionDeniedError):
            elsewhere.recall()


def test_another_tenant_s_memory_is_404_never_its_content(agent: Engram, api_url: str, key: Callable[[str], str], mind_id: str) -> None:
    secret = agent.add("The launch code is 0000", category="fact", key=key("secret"))
    with Engram(need("ENGRAM_TEST_OTHER_MIND_KEY"), base_url=api_url) as stranger:
        calls: List[Callable[[], object]] = [lambda: stranger.get(secret["id"]), lambda: stranger.history(secret["id"]), lambda: stranger.delete(secret["id"])]
        for call in calls:
            with pytest.raises(NotFoundError) as raised:
                call()
            assert raised.value.status == 404 and "0000" not in raised.value.message
        with pytest.raises(NotFoundError):
            stranger.update(secret["id"], content="overwritten")
        assert all(hit["id"] != secret["id"] for hit in stranger.search("launch code"))
    # The other tenant's person naming this tenant's mind: 404 as well.
    with Engram(need("ENGRAM_TEST_OTHER_JWT"), mind_id=mind_id, base_url=api_url) as person:
        with pytest.raises(NotFoundError):
            person.recall()
    assert agent.get(secret["id"])["content"] == "The launch code is 0000"


def test_a_taken_mind_name_is_409(api_url: str, jwt: str) -> None:
    name = f"twin {uuid.uuid4().hex[:8]}"
    with Engram(jwt, base_url=api_url) as owner:
        mind = owner.create_mind(name)
        try:
            with pytest.raises(ConflictError) as raised:
                owner.create_mind(name)
            assert raised.value.status == 409
        finally:
            owner.delete_mind(mind["id"])


def test_over_the_rate_limit_is_429_with_retry_after() -> None:
    limit = int(need("ENGRAM_TEST_LIMITED_PER_MINUTE"))
    with Engram(need("ENGRAM_TEST_LIMITED_MIND_KEY"), base_url=need("ENGRAM_TEST_LIMITED_URL")) as client:
        with pytest.raises(RateLimitError) as raised:
            for _ in range(limit + 1):
                client.recall()
    err = raised.value
    assert err.status == 429 and "rate limit" in err.message
    assert err.retry_after is not None and 0 < err.retry_after <= 60


def test_no_server_is_a_connection_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Engram("emk_x", base_url=f"http://127.0.0.1:{port}") as client:
        with pytest.raises(EngramConnectionError) as raised:
            client.recall()
    assert raised.value.status is None and f"127.0.0.1:{port}" in raised.value.message


def test_an_answer_that_is_not_the_api_s_still_maps_by_status() -> None:
    # What a proxy in front of the API may answer: HTML or nothing, not the API's JSON.
    def proxy(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/recall"):
            return httpx.Response(502, text="<html><body>Bad Gateway</body></html>")
        return httpx.Response(503, headers={"Retry-After": "7"})

    with Engram("emk_x", base_url="http://engram.invalid", http_client=httpx.Client(transport=httpx.MockTransport(proxy))) as client:
        with pytest.raises(ServerError) as bad_gateway:
            client.recall()
        assert bad_gateway.value.status == 502 and "Bad Gateway" in bad_gateway.value.message
        assert bad_gateway.value.body is None and bad_gateway.value.field_errors == []
        with pytest.raises(ServiceUnavailableError) as unavailable:
            client.search("x")
        assert unavailable.value.retry_after == 7.0


def test_ids_cannot_reach_other_routes(agent: Engram) -> None:
    # A crafted id is one quoted path segment: a 404 (or 400), never another route's answer.
    with pytest.raises((NotFoundError, BadRequestError)):
        agent.get("../minds")
    for dots in (".", ".."):
        with pytest.raises(ValueError, match="must not be"):
            agent.add_messages(dots, ["I work at Acme as an engineer"])

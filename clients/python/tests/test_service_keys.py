"""A SaaS backend with a tenant service key (esk_...): one mind per end user, by the SaaS's own user id."""

from __future__ import annotations

import uuid

import pytest

from _support import need, run
from engram_client import AsyncEngram, BadRequestError, Engram, PermissionDeniedError


def test_one_mind_per_end_user_by_external_id(api_url: str) -> None:
    alice_id, bob_id = f"user-{uuid.uuid4().hex[:8]}", f"user-{uuid.uuid4().hex[:8]}"
    with Engram(need("ENGRAM_TEST_SERVICE_KEY"), base_url=api_url) as backend:
        alice_mind = backend.ensure_mind(alice_id, name=f"Alice {alice_id}")
        assert alice_mind["external_id"] == alice_id and alice_mind["name"] == f"Alice {alice_id}"
        assert backend.ensure_mind(alice_id)["id"] == alice_mind["id"], "the same user id must give the same mind"
        assert backend.list_minds(external_id=alice_id)["items"][0]["id"] == alice_mind["id"]

        alice = backend.for_user(alice_id)
        assert alice.mind_id == alice_mind["id"]
        stored = alice.add("Prefers tea over coffee", category="preference", key="drink")
        # A service key writes as an agent: only a person verifies.
        assert stored["source"] == "agent" and stored["verified"] is False and stored["mind_id"] == alice_mind["id"]
        assert alice.history(stored["id"])[0]["actor_type"] == "service_key"

        bob = backend.for_user(bob_id)
        assert bob.mind_id != alice.mind_id
        assert all(hit["id"] != stored["id"] for hit in bob.search("tea coffee"))
        assert "Prefers tea over coffee" in alice.recall("What does the user drink?").text

        with pytest.raises(BadRequestError) as raised:
            backend.recall()  # no mind named
        assert raised.value.fields == ["X-Mind-Id"]


def test_a_read_only_service_key_cannot_write(api_url: str, mind_id: str) -> None:
    with Engram(need("ENGRAM_TEST_READONLY_SERVICE_KEY"), mind_id=mind_id, base_url=api_url) as reader:
        assert reader.recall().text.startswith("Mind: ")
        with pytest.raises(PermissionDeniedError):
            reader.add("not allowed", key="nope")
        with pytest.raises(PermissionDeniedError):
            reader.ensure_mind("someone")


def test_async_for_user(api_url: str) -> None:
    async def body() -> None:
        async with AsyncEngram(need("ENGRAM_TEST_SERVICE_KEY"), base_url=api_url) as backend:
            carol = await backend.for_user(f"user-{uuid.uuid4().hex[:8]}")
            stored = await carol.add("Lives in Porto", category="fact", key="home_city")
            assert stored["mind_id"] == carol.mind_id
            assert [h["id"] for h in await carol.search("Porto")] == [stored["id"]]

    run(body)

"""The synchronous client against the running API: each call, as an agent (Mind Key) and as a person (JWT)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable

import pytest

from engram_client import BadRequestError, Engram, NotFoundError, PermissionDeniedError, PreconditionFailedError, Recall


def test_add_with_a_key_upserts_and_history_keeps_each_version(agent: Engram, key: Callable[[str], str]) -> None:
    name = key("deploy_status")
    first = agent.add("v1.5.0 deployed", category="project", key=name, tags=["synapse", "deployment"], priority="high")
    assert first["key"] == name and first["category"] == "project" and first["content"] == "v1.5.0 deployed"
    assert first["source"] == "agent" and first["verified"] is False  # a Mind Key writes as the agent, unverified
    assert first["tags"] == ["synapse", "deployment"] and first["priority"] == "high" and first["version"] == 1

    second = agent.add("v1.6.0 deployed", category="project", key=name)
    assert second["id"] == first["id"], "the same key must update the memory, not add another"
    assert second["content"] == "v1.6.0 deployed" and second["version"] == 2

    versions = agent.history(first["id"])
    assert [(v["version"], v["change"], v["content"]) for v in versions] == [(2, "update", "v1.6.0 deployed"), (1, "create", "v1.5.0 deployed")]
    assert versions[0]["actor_type"] == "mind_key"


def test_add_without_a_key_stores_the_same_text_once(agent: Engram, tag: str) -> None:
    text = f"The office plant is a ficus named {tag}"
    first = agent.add(text, tags=[tag])
    again = agent.add(text, tags=[tag])
    assert first["category"] == "note" and first["key"].startswith("m_")
    assert again["id"] == first["id"] and again["version"] == 1
    other = agent.add(f"The office cat is called {tag}", tags=[tag])
    assert other["id"] != first["id"]
    assert len(agent.list_memories(tags=[tag])["items"]) == 2


def test_search_finds_by_words_and_filters(agent: Engram, tag: str, key: Callable[[str], str]) -> None:
    agent.add(f"The {tag} rollout is blocked on the database migration", category="project", key=key("rollout"), tags=[tag, "blocked"])
    agent.add(f"The {tag} team prefers short status mails", category="preference", key=key("mails"), tags=[tag])

    hits = agent.search(f"{tag} database migration", limit=5)
    assert hits, "search found nothing"
    assert "database migration" in hits[0]["content"]
    assert all(isinstance(hit["score"], float) for hit in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)

    only_preferences = agent.search(tag, category="preference", tags=[tag])
    assert [h["category"] for h in only_preferences] == ["preference"]

    explained = agent.search(f"{tag} rollout", limit=1, explain=True)
    assert "explain" in explained[0] and explained[0]["explain"]["score"] == pytest.approx(explained[0]["score"])


def test_search_by_time_window(agent: Engram, tag: str, key: Callable[[str], str]) -> None:
    agent.add(f"{tag} kickoff meeting", key=key("kickoff"), tags=[tag], occurred_at=datetime(2024, 1, 10, tzinfo=timezone.utc))
    agent.add(f"{tag} launch meeting", key=key("launch"), tags=[tag], occurred_at="2025-06-01T09:00:00Z")
    # Filtered by this test's tag: the shared mind holds other tests' memories, and one of them
    # can be near enough by meaning (the hashing vectors of two random tags) to be a hit.
    hits = agent.search(f"{tag} meeting", tags=[tag], since=datetime(2025, 1, 1, tzinfo=timezone.utc))
    assert [h["content"] for h in hits] == [f"{tag} launch meeting"]
    hits = agent.search(f"{tag} meeting", tags=[tag], until="2025-01-01T00:00:00Z")
    assert [h["content"] for h in hits] == [f"{tag} kickoff meeting"]


def test_recall_gives_context_text_within_a_token_budget(fresh_agent: Engram, key: Callable[[str], str], tag: str) -> None:
    agent = fresh_agent
    agent.add("The user's name is Ada Lovelace", category="identity", key=key("user_name"), priority="critical")
    for i in range(30):
        agent.add(f"{tag} filler memory number {i} about nothing in particular, padded to take some room", key=key("filler"), tags=[tag])

    everything = agent.recall()
    assert isinstance(everything, Recall)
    assert "Ada Lovelace" in everything.text and str(everything) == everything.text
    assert everything.entries == 31 and everything.tokens > 0

    small = agent.recall(max_tokens=150)
    assert 0 < small.tokens <= 150, "recall must stay within max_tokens"
    assert small.entries < everything.entries
    assert "Ada Lovelace" in small.text, "critical memories come first, whatever the budget"

    asked = agent.recall("What is the user's name?", max_tokens=400)
    assert "Ada Lovelace" in asked.text

    assert agent.recall(limit=1).entries == 1


def test_get_update_delete(agent: Engram, key: Callable[[str], str]) -> None:
    memory = agent.add("Meets on Tuesdays", category="fact", key=key("meeting_day"), expires_at="2099-01-01T00:00:00Z")
    assert memory["expires_at"] is not None
    assert agent.get(memory["id"])["content"] == "Meets on Tuesdays"

    changed = agent.update(memory["id"], content="Meets on Wednesdays", tags=["calendar"], importance=0.8, expires_at=None)
    assert changed["id"] == memory["id"] and changed["version"] == 2
    assert changed["content"] == "Meets on Wednesdays" and changed["tags"] == ["calendar"]
    assert changed["expires_at"] is None, "expires_at=None must clear the expiry"
    assert changed["category"] == "fact" and changed["key"] == memory["key"], "category and key stay"

    only_priority = agent.update(memory["id"], priority="low")
    assert only_priority["priority"] == "low" and only_priority["content"] == "Meets on Wednesdays" and only_priority["tags"] == ["calendar"]

    with pytest.raises(ValueError):
        agent.update(memory["id"])

    agent.delete(memory["id"])
    with pytest.raises(NotFoundError):
        agent.get(memory["id"])
    with pytest.raises(NotFoundError):
        agent.delete(memory["id"])


def test_list_paginates_with_a_cursor(agent: Engram, tag: str, key: Callable[[str], str]) -> None:
    added = [agent.add(f"{tag} item {i}", key=key("item"), tags=[tag])["id"] for i in range(5)]
    newest_first = list(reversed(added))

    pages = []
    cursor = None
    while True:
        page = agent.list_memories(tags=[tag], limit=2, cursor=cursor)
        pages.append([m["id"] for m in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == [newest_first[0:2], newest_first[2:4], newest_first[4:5]]

    assert [m["id"] for m in agent.iter_memories(tags=[tag], page_size=2)] == newest_first
    assert [m["id"] for m in agent.iter_memories(tags=[tag], category="project")] == []


def test_batch_upserts_many_at_once(agent: Engram, tag: str, key: Callable[[str], str]) -> None:
    first, second = key("lang"), key("editor")
    result = agent.batch(
        [
            {"category": "preference", "key": first, "content": "Writes Python", "tags": [tag]},
            {"category": "preference", "key": second, "content": "Uses vim", "tags": [tag], "priority": "low"},
        ]
    )
    assert (result["created"], result["updated"], result["unchanged"]) == (2, 0, 0)
    again = agent.batch([{"category": "preference", "key": first, "content": "Writes Python and Rust"}])
    assert again["items"][0]["status"] == "updated" and again["items"][0]["version"] == 2


def test_expiring_lists_what_expires_soon(agent: Engram, key: Callable[[str], str]) -> None:
    soon = agent.add("The trial ends soon", key=key("trial"), expires_at=datetime.now(timezone.utc) + timedelta(hours=30))
    later = agent.add("The lease ends later", key=key("lease"), expires_at=datetime.now(timezone.utc) + timedelta(days=20))
    ids = [m["id"] for m in agent.expiring(within="2d")]
    assert soon["id"] in ids and later["id"] not in ids
    assert soon["id"] in [m["id"] for m in agent.expiring(within=timedelta(hours=31))]
    with pytest.raises(ValueError, match="timezone"):
        agent.add("naive", key=key("naive"), expires_at=datetime(2030, 1, 1))


def test_conversation_messages_become_memories(agent: Engram, tag: str) -> None:
    conversation = f"chat-{tag}"
    appended = agent.add_messages(
        conversation,
        [
            {"role": "user", "content": f"My sister {tag} moved to Porto last spring", "importance": 0.9},
            {"role": "assistant", "content": "Noted!", "importance": 0.0},
            "hmm ok",
        ],
    )
    assert appended["conversation_id"] == conversation and len(appended["message_ids"]) == 3
    assert appended["attended"] >= 1 and appended["stm_size"] >= 1

    saved = agent.consolidate(conversation)
    assert saved and all(outcome["status"] in ("created", "reinforced") for outcome in saved)
    stored = agent.get(next(o["memory_id"] for o in saved))
    assert tag in stored["content"]
    assert any(tag in hit["content"] for hit in agent.search(f"{tag} Porto"))
    assert agent.consolidate(conversation) == [], "nothing left in short-term memory"


def test_a_conversation_reads_back_as_received(agent: Engram, tag: str) -> None:
    conversation = f"log-{tag}"
    sent = [{"client_id": f"m{i}", "content": f"line {i} of {tag}", "metadata": {"n": i}} for i in range(5)]
    assert len(agent.add_messages(conversation, sent)["message_ids"]) == 5
    page = agent.list_messages(conversation, limit=2)
    assert [m["client_id"] for m in page["items"]] == ["m0", "m1"] and page["next_cursor"] is not None
    every = list(agent.iter_messages(conversation, page_size=2))
    assert [(m["client_id"], m["metadata"]) for m in every] == [(f"m{i}", {"n": i}) for i in range(5)]


def test_if_match_refuses_a_change_from_an_old_version(agent: Engram, key: Callable[[str], str]) -> None:
    first = agent.add("Room 12", category="fact", key=key("room"))
    second = agent.update(first["id"], content="Room 14", if_match=first["version"])
    assert second["version"] == 2
    with pytest.raises(PreconditionFailedError) as stale:
        agent.update(first["id"], content="Room 15", if_match=first["version"])
    assert stale.value.status == 412
    with pytest.raises(PreconditionFailedError):
        agent.delete(first["id"], if_match=1)
    assert agent.get(first["id"])["content"] == "Room 14"
    with pytest.raises(ValueError):
        agent.update(first["id"], content="Room 16", if_match=0)
    agent.delete(first["id"], if_match=2)


def test_ending_a_conversation_keeps_what_matters_and_lets_chatter_go(agent: Engram, tag: str) -> None:
    conversation = f"ended-{tag}"
    agent.add_messages(
        conversation,
        [
            {"role": "user", "content": f"My brother {tag} starts at the Lisbon office in March", "importance": 0.9},
            {"role": "user", "content": "maybe we could look at some other options later on", "importance": 0.3},
        ],
    )
    ended = agent.end_conversation(conversation)
    assert ended["conversation_id"] == conversation
    assert [o["trigger"] for o in ended["consolidated"]] == ["importance"] and ended["discarded"] == 1
    assert tag in agent.get(ended["consolidated"][0]["memory_id"])["content"]
    assert agent.end_conversation(conversation) == {"conversation_id": conversation, "consolidated": [], "discarded": 0}


def test_a_person_writes_verified_memories_and_verifies_the_agents(person: Engram, agent: Engram, key: Callable[[str], str]) -> None:
    mine = person.add("Michael Schäfer", category="identity", key=key("user_name"), priority="critical")
    assert mine["source"] == "user" and mine["verified"] is True

    by_agent = agent.add("Likes dark roast coffee", category="preference", key=key("coffee"))
    verified = person.verify(by_agent["id"])
    assert verified["verified"] is True
    assert person.history(by_agent["id"])[0]["change"] == "verify"
    with pytest.raises(PermissionDeniedError):
        agent.verify(by_agent["id"])


def test_a_jwt_needs_a_mind_and_for_mind_names_it(api_url: str, jwt: str, mind_id: str) -> None:
    with Engram(jwt, base_url=api_url) as unscoped:
        with pytest.raises(BadRequestError) as raised:
            unscoped.recall()
        assert raised.value.fields == ["X-Mind-Id"]
        scoped = unscoped.for_mind(mind_id)
        assert scoped.mind_id == mind_id and unscoped.mind_id is None
        assert scoped.recall().text.startswith("Mind: ")


def test_configuration_from_the_environment(monkeypatch: pytest.MonkeyPatch, api_url: str, mind_key: str, key: Callable[[str], str]) -> None:
    monkeypatch.setenv("ENGRAM_URL", api_url + "/v1/")  # a copied URL with /v1 still works
    monkeypatch.setenv("ENGRAM_API_KEY", mind_key)
    with Engram() as client:
        assert client.base_url == api_url
        assert client.add("from the environment", key=key("env"))["source"] == "agent"
    with pytest.raises(ValueError):
        Engram("two words")


def test_minds_with_a_person_s_jwt(api_url: str, jwt: str, tag: str) -> None:
    with Engram(jwt, base_url=api_url) as owner:
        created = [owner.create_mind(f"{tag} user {i}", description="one end user's memory") for i in range(3)]
        assert created[0]["name"] == f"{tag} user 0" and created[0]["description"] == "one end user's memory"
        assert owner.get_mind(created[1]["id"])["name"] == f"{tag} user 1"
        assert owner.list_minds(name=f"{tag} user 2")["items"][0]["id"] == created[2]["id"]

        page = owner.list_minds(limit=1)
        assert len(page["items"]) == 1 and page["next_cursor"] is not None
        all_ids = [m["id"] for m in owner.iter_minds(page_size=2)]
        assert all(m["id"] in all_ids for m in created) and len(all_ids) == len(set(all_ids))

        new_key = owner.create_mind_key(created[0]["id"], name="support bot")
        assert new_key["key"].startswith("emk_") and new_key["mind_id"] == created[0]["id"]
        with Engram(new_key["key"], base_url=api_url) as bot:
            assert bot.add("Prefers e-mail over phone", category="preference", key="contact_channel")["mind_id"] == created[0]["id"]

        owner.delete_mind(created[0]["id"])
        with pytest.raises(NotFoundError):
            owner.get_mind(created[0]["id"])

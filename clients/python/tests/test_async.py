"""The asyncio client against the running API: the same calls as Engram, awaited, and the same errors."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
from pathlib import Path
from typing import Callable

import pytest

from _support import need, run
from engram_client import AsyncEngram, BadRequestError, Engram, NotFoundError, PermissionDeniedError


ROOT = Path(__file__).resolve().parent.parent


def test_the_async_client_is_generated_from_the_sync_one() -> None:
    spec = importlib.util.spec_from_file_location("make_async", ROOT / "tools" / "make_async.py")
    assert spec is not None and spec.loader is not None
    make_async = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_async)
    expected = make_async.generate((ROOT / "engram_client" / "client.py").read_text(encoding="utf-8"))
    committed = (ROOT / "engram_client" / "async_client.py").read_text(encoding="utf-8")
    assert committed == expected, "engram_client/async_client.py is stale: run python3 tools/make_async.py"


def test_the_async_client_has_every_call_of_the_sync_one_with_the_same_arguments() -> None:
    def calls(cls: type) -> dict[str, inspect.Signature]:
        return {name: inspect.signature(member) for name, member in vars(cls).items() if callable(member) and not name.startswith("_")}

    sync, async_ = calls(Engram), calls(AsyncEngram)
    assert sorted(sync) == sorted(async_)
    for name, signature in sync.items():
        assert list(signature.parameters.values()) == list(async_[name].parameters.values()), name
        member = vars(AsyncEngram)[name]
        if name == "for_mind":  # a copy of the client, no request
            continue
        kind = inspect.isasyncgenfunction(member) if name.startswith("iter_") else inspect.iscoroutinefunction(member)
        assert kind, f"AsyncEngram.{name} must be awaitable (or an async iterator)"


def test_remember_search_recall_update_history_delete(api_url: str, mind_key: str, key: Callable[[str], str], tag: str) -> None:
    async def body() -> None:
        async with AsyncEngram(mind_key, base_url=api_url) as memory:
            name = key("favourite_editor")
            stored = await memory.add(f"{tag} uses Helix as the editor", category="preference", key=name, tags=[tag])
            assert stored["source"] == "agent" and stored["key"] == name

            hits = await memory.search(f"{tag} editor")
            assert hits[0]["id"] == stored["id"]
            assert f"{tag} uses Helix" in (await memory.recall(f"Which editor does {tag} use?", max_tokens=500)).text

            changed = await memory.update(stored["id"], content=f"{tag} uses Zed as the editor")
            assert changed["version"] == 2
            assert (await memory.get(stored["id"]))["content"] == f"{tag} uses Zed as the editor"
            assert [v["version"] for v in await memory.history(stored["id"])] == [2, 1]

            await memory.delete(stored["id"])
            with pytest.raises(NotFoundError):
                await memory.get(stored["id"])

    run(body)


def test_concurrent_calls_and_async_pagination(api_url: str, mind_key: str, key: Callable[[str], str], tag: str) -> None:
    async def body() -> None:
        async with AsyncEngram(mind_key, base_url=api_url) as memory:
            added = await asyncio.gather(*(memory.add(f"{tag} parallel {i}", key=key("parallel"), tags=[tag]) for i in range(6)))
            expected = {m["id"] for m in added}
            page = await memory.list_memories(tags=[tag], limit=4)
            assert len(page["items"]) == 4 and page["next_cursor"] is not None
            rest = await memory.list_memories(tags=[tag], limit=4, cursor=page["next_cursor"])
            assert len(rest["items"]) == 2 and rest["next_cursor"] is None
            seen = [m["id"] async for m in memory.iter_memories(tags=[tag], page_size=4)]
            assert len(seen) == 6 and set(seen) == expected

    run(body)


def test_conversation_messages(api_url: str, mind_key: str, tag: str) -> None:
    async def body() -> None:
        async with AsyncEngram(mind_key, base_url=api_url) as memory:
            appended = await memory.add_messages(f"async-{tag}", [f"My dentist {tag} is on Rua Augusta"])
            assert appended["attended"] == 1
            saved = await memory.consolidate(f"async-{tag}")
            assert len(saved) == 1
            assert tag in (await memory.get(saved[0]["memory_id"]))["content"]

    run(body)


def test_errors_are_the_same_exceptions(api_url: str, mind_key: str, jwt: str, mind_id: str) -> None:
    async def body() -> None:
        async with AsyncEngram(mind_key, base_url=api_url) as memory:
            with pytest.raises(BadRequestError) as raised:
                await memory.add("x", key="fine_key", importance=-0.5)
            assert raised.value.fields == ["importance"]
            with pytest.raises(PermissionDeniedError):
                await memory.verify("00000000-0000-4000-8000-000000000000")
        async with AsyncEngram(need("ENGRAM_TEST_OTHER_JWT"), base_url=api_url) as stranger:
            with pytest.raises(NotFoundError):
                await stranger.for_mind(mind_id).recall()
        async with AsyncEngram(jwt, base_url=api_url) as owner:
            minds = [m["id"] async for m in owner.iter_minds(page_size=1)]
            assert mind_id in minds

    run(body)
